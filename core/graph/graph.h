#pragma once
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/op_kind.h"
#include "core/tensor/tensor.h"

namespace tc {

template <class T>
struct OpaqueDef;

//! An op's attributes; each op reads only the fields its definition names.
template <class T>
struct Attrs {
  std::optional<T> c;       //!< scale
  std::optional<T> lo, hi;  //!< clamp
  std::size_t axis = 0;     //!< sum_axis
  std::size_t start = 0;    //!< slice0
  std::size_t len = 0;      //!< slice0
  Shape shape;              //!< reshape, broadcast, const
  std::vector<T> values;    //!< const
  std::string key;          //!< mask, gather0: a key of the graph's data schema
  const OpaqueDef<T>* opaque = nullptr;  //!< opaque: the registered program
};

//! One SSA node: an op applied to earlier positions, with its checked output shape.
template <class T>
struct Node {
  OpKind op;
  std::vector<std::size_t> args;
  Attrs<T> attrs;
  Shape shape;
};

//! The shapes of a graph's non-differentiable data Δ. Gather indices are structural (they
//! decide shapes and ranges), so the schema holds them; tensors hold values supplied per run.
struct DataSchema {
  std::map<std::string, Shape> tensors;
  std::map<std::string, std::vector<std::size_t>> indices;
};

//! Values for the tensor keys of a DataSchema.
template <class T>
using Data = std::map<std::string, Tensor<T>>;

//! A well-typed graph: input shapes Γ, nodes in creation order, and its data schema.
//! Positions 0..|Γ|-1 are the inputs, node k is position |Γ|+k. Built only by GraphBuilder
//! or the file loader, which check everything.
template <class T>
struct Graph {
  std::vector<Shape> inputs;
  std::vector<Node<T>> nodes;
  DataSchema schema;

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
