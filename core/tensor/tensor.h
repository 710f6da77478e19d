#pragma once
#include <cassert>
#include <cstddef>
#include <vector>

#include "core/tensor/shape.h"

namespace tc {

//! A shape plus its row-major values.
template <class T>
struct Tensor {
  Shape shape;
  std::vector<T> values;

  Tensor() = default;
  Tensor(const Shape& s, std::vector<T> v) : shape(s), values(std::move(v)) {
    assert(values.size() == elementCount(shape));
  }
  static Tensor filled(const Shape& s, const T& value) {
    return Tensor(s, std::vector<T>(elementCount(s), value));
  }
  std::size_t size() const { return values.size(); }
  const T& operator[](std::size_t i) const { return values[i]; }
  T& operator[](std::size_t i) { return values[i]; }
};

//! An ordered list of tensors: inputs, a context (inputs then nodes), a seed pack, gradients.
template <class T>
using Pack = std::vector<Tensor<T>>;

}  // namespace tc
