#pragma once
// The runtime tape (docs/semantics.md §1.7): a plain array of nodes whose backward closures return
// contributions to earlier nodes. The reverse pass is the loop in Tape::backwardDenseFrom.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/support/result.h"
#include "core/tensor/tensor.h"

namespace tc {

//! Contributions of one backward call: (tape position, gradient) pairs, folded in order. A pair
//! without a gradient contributes the carrier's zero of that position's shape, which then need
//! not be built: a dense closure lists every earlier position, and all but a few get zero.
template <class T>
using Contributions = std::vector<std::pair<std::size_t, std::optional<Tensor<T>>>>;

//! One tape entry: a value, whether it takes gradients, its parents, and its backward closure.
template <class T>
struct TapeNode {
  std::string name;
  Tensor<T> value;
  bool requiresGrad = true;
  std::vector<std::size_t> parents;
  std::function<Result<Contributions<T>>(const Tensor<T>& upstream)> backward;
};

//! A runtime tape of tensors over carrier T.
template <class T>
struct Tape {
  std::vector<TapeNode<T>> nodes;

  //! Reverse pass from one gradient per node: for ids n-1..0 that require gradients, check the
  //! upstream shape, call backward, and fold each (position, g) into acc[position] + g (g the
  //! zero when the pair has none). Contributions to frozen nodes are dropped; a bad position or
  //! shape is an error.
  Result<Pack<T>> backwardDenseFrom(Pack<T> grads) const;
};

}  // namespace tc
