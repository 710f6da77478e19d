#pragma once
// What an op definition sees: its node, its arguments, the data, and a place to put terms.
#include <boost/container/small_vector.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/graph/graph.h"

namespace tc {

//! Arguments to an op's shape rule: the candidate node's attributes and its argument shapes.
template <class T>
struct ShapeCall {
  const Attrs<T>& attrs;
  std::span<const Shape* const> args;
  const DataSchema& schema;
  const Shape& arg(std::size_t i) const { return *args[i]; }
};

//! Arguments to an op's forward, validation and terms: the node, its argument values and Δ.
template <class T>
struct OpCall {
  const Node<T>& node;
  std::span<const Tensor<T>* const> args;
  const DataSchema& schema;
  const Data<T>& data;
  const Tensor<T>& arg(std::size_t i) const { return *args[i]; }
  const Attrs<T>& attrs() const { return node.attrs; }
};

//! One term of a compact node's certified support: the contribution to argument `arg`.
template <class T>
struct Term {
  std::size_t arg;
  Tensor<T> value;
};

//! A compact node's terms, in declared order (held inline: no op has more than three).
template <class T>
using Terms = boost::container::small_vector<Term<T>, 3>;

//! Pointers to a node's argument values, in argument order.
template <class T>
using ArgValues = boost::container::small_vector<const Tensor<T>*, 4>;

//! A domain-check result: nothing, or the reason the node's input is outside its domain.
using DomainError = std::optional<std::string>;

}  // namespace tc
