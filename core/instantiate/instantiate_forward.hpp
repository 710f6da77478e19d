#pragma once
// Instantiates only the forward side of the op library, for the dual-number carriers of the
// adjoint oracle.
#include "core/carriers/dual.h"
#include "core/graph/node_program.hpp"
#include "core/ops/opaque.hpp"

#define TAPECHECK_INSTANTIATE_FORWARD(T)                   \
  template class OpaqueRegistry<T>;                        \
  template Tensor<T> forwardNode<T>(OpKind, const OpCall<T>&);  \
  template Tensor<T> forwardAt<T>(const Graph<T>&, std::span<const Tensor<T>>, const Data<T>&, std::size_t);
