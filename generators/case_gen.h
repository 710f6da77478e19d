#pragma once
// Random well-typed cases and their graph-aware shrinks. A case is a document in the file format
// (DESIGN section 4), so what is generated, shrunk, saved and replayed is one representation.
#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include <cstdint>
#include <utility>
#include <ostream>
#include <vector>

namespace tc::gen {

//! A random case document that loads on carrier T: a well-typed graph, input values, data, an
//! output and seeds. `size` (0..100) scales the number of nodes. Deterministic in `seed`.
template <class T>
nlohmann::json randomCase(std::uint64_t seed, int size);

//! The same graph, data and output with fresh input values and seeds, drawn as for a generated
//! case. A document that does not load on T comes back unchanged.
template <class T>
nlohmann::json withRandomValues(const nlohmann::json& doc, std::uint64_t seed);

//! Smaller variants of a case, each of which loads on carrier T: delete a node (rerouting its
//! users to an earlier position of the same shape, its own argument first), drop unused inputs,
//! shrink input dimensions, simplify values toward 0 and 1, and seed packs toward one-hot.
template <class T>
std::vector<nlohmann::json> shrinksOf(const nlohmann::json& doc);

//! Greedy shrinking outside RapidCheck: repeatedly takes the first shrink for which `stillFails`
//! holds, until none does. Returns the smallest case found and how many steps it took.
template <class T, class Predicate>
std::pair<nlohmann::json, std::size_t> shrinkWhile(nlohmann::json doc, Predicate&& stillFails) {
  std::size_t steps = 0;
  for (bool progressed = true; progressed;) {
    progressed = false;
    for (auto& candidate : shrinksOf<T>(doc))
      if (stillFails(candidate)) {
        doc = std::move(candidate);
        ++steps;
        progressed = true;
        break;
      }
  }
  return {std::move(doc), steps};
}

//! The RapidCheck generator of cases for carrier T, shrinking with shrinksOf.
template <class T>
rc::Gen<nlohmann::json> arbitraryCase() {
  return rc::Gen<nlohmann::json>([](const rc::Random& random, int size) {
    std::uint64_t seed = rc::Random(random).next();
    return rc::shrinkable::shrinkRecur(randomCase<T>(seed, size), [](const nlohmann::json& doc) {
      return rc::seq::fromContainer(shrinksOf<T>(doc));
    });
  });
}

}  // namespace tc::gen

namespace nlohmann {
//! How RapidCheck prints a generated case: the document itself, on one line.
inline void showValue(const json& doc, std::ostream& os) { os << doc.dump(); }
}  // namespace nlohmann
