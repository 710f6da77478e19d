#pragma once
// Carriers chosen by name at run time (command line, saved counterexamples).
#include <cassert>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/carriers/carrier.h"

namespace tc {

//! Carrier names accepted by `--carrier`.
inline const std::vector<std::string> kCarrierNames = {"rational", "modp", "double", "float", "rational-noeq", "interval"};

//! Calls `f.template operator()<T>()` with the carrier named `name`. Callers validate names
//! first: a name outside kCarrierNames is a broken invariant.
template <class F>
int withCarrier(std::string_view name, F&& f) {
  if (name == "rational") return f.template operator()<Rational>();
  if (name == "modp") return f.template operator()<ModP>();
  if (name == "double") return f.template operator()<double>();
  if (name == "float") return f.template operator()<float>();
  if (name == "rational-noeq") return f.template operator()<RationalNoEq>();
  if (name == "interval") return f.template operator()<Interval>();
  assert(false && "withCarrier: unknown carrier name");
  std::abort();
}

}  // namespace tc
