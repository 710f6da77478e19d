#pragma once
// Elementwise and indexing helpers shared by op definitions.
#include <cassert>
#include <cstddef>

#include "core/carriers/carrier.h"
#include "core/tensor/tensor.h"

namespace tc::kernels {

template <class T, class F>
Tensor<T> map(const Tensor<T>& x, F f) {
  std::vector<T> out;
  out.reserve(x.size());
  for (const T& v : x.values) out.push_back(f(v));
  return Tensor<T>(x.shape, std::move(out));
}

template <class T, class F>
Tensor<T> zip(const Tensor<T>& a, const Tensor<T>& b, F f) {
  assert(a.size() == b.size());
  std::vector<T> out;
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out.push_back(f(a[i], b[i]));
  return Tensor<T>(a.shape, std::move(out));
}

template <class T, class F>
Tensor<T> zip3(const Tensor<T>& a, const Tensor<T>& b, const Tensor<T>& c, F f) {
  assert(a.size() == b.size() && a.size() == c.size());
  std::vector<T> out;
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out.push_back(f(a[i], b[i], c[i]));
  return Tensor<T>(a.shape, std::move(out));
}

//! A tensor of `shape` filled with the carrier's zero.
template <class T>
Tensor<T> zeros(const Shape& shape) {
  return Tensor<T>::filled(shape, zero<T>());
}

//! Elementwise `acc = acc + x`, existing value on the left.
template <class T>
void addInto(Tensor<T>& acc, const Tensor<T>& x) {
  assert(acc.size() == x.size());
  for (std::size_t i = 0; i < acc.size(); ++i) acc[i] = acc[i] + x[i];
}

//! Product of the dimensions from `from` on (the row size below an axis).
inline std::size_t innerSize(const Shape& shape, std::size_t from) {
  std::size_t n = 1;
  for (std::size_t i = from; i < shape.size(); ++i) n *= shape[i];
  return n;
}

}  // namespace tc::kernels
