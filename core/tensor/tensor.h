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
  Tensor(Shape s, std::vector<T> v) : shape(std::move(s)), values(std::move(v)) {
    assert(values.size() == elementCount(shape));
  }
  static Tensor filled(Shape s, const T& value) {
    std::size_t n = elementCount(s);
    return Tensor(std::move(s), std::vector<T>(n, value));
  }
  std::size_t size() const { return values.size(); }
  const T& operator[](std::size_t i) const { return values[i]; }
  T& operator[](std::size_t i) { return values[i]; }
};

//! An ordered list of tensors: inputs, a context (inputs then nodes), a seed pack, gradients.
template <class T>
using Pack = std::vector<Tensor<T>>;

}  // namespace tc
