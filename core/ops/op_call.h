#pragma once
// What an op definition sees: its attributes, argument shapes or values, the data, and a place
// to put terms.
#include <boost/container/small_vector.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/ops/attributes.h"
#include "core/ops/conventions.h"
#include "core/support/result.h"

namespace tc {

//! Arguments to an op's shape rule: the candidate node's attributes and its argument shapes.
template <class T>
struct ShapeCall {
  const Attrs<T>& attrs;
  std::span<const Shape* const> args;
  const DataSchema& schema;
  const Shape& arg(std::size_t i) const { return *args[i]; }
};

//! Arguments to an op's forward, validation, terms and kinks: the node's attributes and output
//! shape, its argument values, Δ, and the graph's conventions.
template <class T>
struct OpCall {
  const Attrs<T>& attrs;
  const Shape& shape;  //!< the node's output shape
  std::span<const Tensor<T>* const> args;
  const DataSchema& schema;
  const Data<T>& data;
  const Conventions& conventions;
  const Tensor<T>& arg(std::size_t i) const { return *args[i]; }
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

//! Probe directions of a node's arguments, one tensor per argument (a repeated argument points
//! at one tensor twice). At a kink an op rewrites them to directions it is differentiable along.
template <class T>
struct KinkDirections {
  std::span<Tensor<T>* const> args;
  Tensor<T>& arg(std::size_t i) const { return *args[i]; }
};

//! The shape contract of an op's arguments, as the op table writes it ("a,b: s → s"). Callers
//! that build nodes, such as the case generator, choose arguments by it.
enum class Signature {
  none,         //!< no arguments (const)
  any,          //!< x of any shape
  sameShape,    //!< a, b of one shape
  leadingAxis,  //!< x with at least one axis: [n, ...]
  matrix,       //!< x: [m, n]
  vectors,      //!< a, b: [n]
  matmul,       //!< [m, k] × [k, n] or [m, k] × [k]
  linear,       //!< W [m, k], x [k], b [m]
  concat,       //!< [m, ...] and [n, ...] with equal trailing dimensions
  reshape,      //!< x and a target shape of the same size (attribute `shape`)
  broadcast,    //!< x and a target shape that x's shape is a suffix of (attribute `shape`)
};

//! Where an op's kinks lie, for callers that put argument values there on purpose (the case
//! generator does, so that the value each convention chooses is checked).
enum class KinkPlace {
  none,   //!< no kinks
  zero,   //!< an element of x at 0
  bound,  //!< an element of x at the attribute `lo` or `hi`
  tie,    //!< equal elements of a and b
};

}  // namespace tc
