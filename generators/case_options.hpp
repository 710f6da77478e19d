#pragma once
// What CaseOptions allow, in one place for the case writer, the acceptance check and the
// coverage floors.
#include <algorithm>

#include "core/carriers/carrier.h"
#include "core/ops/library.hpp"
#include "generators/generate.h"

namespace tc::gen {

//! Whether cases on carrier T are drawn in the exact domain (it changes nothing on exact carriers,
//! where every case is exact).
template <class T>
bool exactDomainOn(const CaseOptions& options) {
  return options.domain == Domain::exact && !Carrier<T>::caps.exact;
}

//! Whether cases on carrier T generated with `options` may use op `kind` (of those T supports).
template <class T>
bool allowsOp(const CaseOptions& options, OpKind kind) {
  if (exactDomainOn<T>(options) && !ops::inExactDomain(kind)) return false;
  return !options.ops || std::find(options.ops->begin(), options.ops->end(), kind) != options.ops->end();
}

}  // namespace tc::gen
