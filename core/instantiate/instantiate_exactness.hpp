#pragma once
// Instantiates the exact-domain checker (core/spec/exactness.h) for an IEEE carrier T, together
// with the opaque registry of GridBound<T>, the carrier it runs the op library on.
#include "core/spec/exactness.hpp"

#define TAPECHECK_INSTANTIATE_EXACTNESS(T)   \
  template class OpaqueRegistry<GridBound<T>>; \
  template Result<void> spec::checkOpsInExactDomain<T>(const Graph<T>&); \
  template Result<void> spec::checkExactDomain<T>(const Graph<T>&, const Pack<T>&, const Data<T>&, const Pack<T>&);
