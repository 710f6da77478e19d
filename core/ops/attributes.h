#pragma once
// What a node carries besides its op and arguments: attributes (each op declares which, in its
// `attributes` schema) and the data Δ that some ops read.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/tensor/tensor.h"

namespace tc {

template <class T>
struct OpaqueDef;

//! An op's attributes; each op reads only the fields its `attributes` schema names.
template <class T>
struct Attrs {
  std::optional<T> c;       //!< scale
  std::optional<T> lo, hi;  //!< clamp
  std::size_t axis = 0;     //!< sum_axis
  std::size_t start = 0;    //!< slice0
  std::size_t len = 0;      //!< slice0
  Shape shape;              //!< reshape, broadcast, const
  std::vector<T> values;    //!< const: shaped by `shape`
  std::string key;          //!< mask, gather0: a key of the graph's data schema
  const OpaqueDef<T>* opaque = nullptr;  //!< opaque: the registered program
};

//! The Attrs field an attribute lives in; its type decides how files read and write it.
template <class T>
using AttrField = std::variant<std::optional<T> Attrs<T>::*, std::size_t Attrs<T>::*, Shape Attrs<T>::*,
                               std::vector<T> Attrs<T>::*, std::string Attrs<T>::*, const OpaqueDef<T>* Attrs<T>::*>;

//! One attribute of an op's schema: its name in files, the field holding it, whether a listing
//! shows it ("scale(2) c=1/2", "reshape(0) to [6]"), and the value at which the op is simplest
//! (scale's c = 1, its identity), toward which shrinking moves it; empty when there is none. A
//! `values` field is read after, and shaped by, the `shape` field, so a schema names `shape` first.
template <class T>
struct AttrSpec {
  std::string_view name;
  AttrField<T> field;
  bool listed = true;
  std::string_view neutral = {};
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

}  // namespace tc
