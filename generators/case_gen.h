#pragma once
// The RapidCheck generator of cases: random documents (generate.h) that shrink graph-aware
// (shrink.h), each value carrying the case it loads as.
#include <rapidcheck.h>

#include <cassert>
#include <ostream>

#include "generators/generate.h"
#include "generators/shrink.h"

namespace tc::gen {

//! The RapidCheck generator of cases for carrier T, shrinking with shrinksOf.
template <class T>
rc::Gen<LoadedDoc<T>> arbitraryCase() {
  return rc::Gen<LoadedDoc<T>>([](const rc::Random& random, int size) {
    std::uint64_t seed = rc::Random(random).next();
    auto generated = loadDoc<T>(randomCase<T>(seed, size));
    assert(generated && "every generated case loads");
    return rc::shrinkable::shrinkRecur(std::move(*generated), [](const LoadedDoc<T>& doc) {
      return rc::seq::fromContainer(shrinksOf<T>(doc));
    });
  });
}

//! How RapidCheck prints a generated case: the document itself, on one line.
template <class T>
void showValue(const LoadedDoc<T>& doc, std::ostream& os) {
  os << doc.doc.dump();
}

}  // namespace tc::gen
