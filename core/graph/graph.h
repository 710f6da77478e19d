#pragma once
#include <cstddef>
#include <vector>

#include "core/ops/attributes.h"
#include "core/ops/conventions.h"
#include "core/ops/op_kind.h"
#include "core/tensor/tensor.h"

namespace tc {

//! One SSA node: an op applied to earlier positions, with its checked output shape.
template <class T>
struct Node {
  OpKind op;
  std::vector<std::size_t> args;
  Attrs<T> attrs;
  Shape shape;
};

//! A well-typed graph: input shapes Γ, nodes in creation order, its data schema, and the
//! conventions it is run with (the specification's unless an engine profile says otherwise).
//! Positions 0..|Γ|-1 are the inputs, node k is position |Γ|+k. Built only by GraphBuilder
//! or the file loader, which check everything.
template <class T>
struct Graph {
  std::vector<Shape> inputs;
  std::vector<Node<T>> nodes;
  DataSchema schema;
  Conventions conventions;

  std::size_t positionCount() const { return inputs.size() + nodes.size(); }
  bool isInput(std::size_t position) const { return position < inputs.size(); }
  const Node<T>& nodeAt(std::size_t position) const { return nodes[position - inputs.size()]; }
  const Shape& shapeAt(std::size_t position) const {
    return isInput(position) ? inputs[position] : nodeAt(position).shape;
  }
};

//! Indexed primal values: one tensor per position of Γ ++ ss.
template <class T>
using Context = Pack<T>;

}  // namespace tc
