#pragma once
// Graphs, tensors, attributes and seed packs written by hand in the tests of the core: one copy of
// the small helpers several test files used to define for themselves.
#include <cstddef>
#include <utility>
#include <vector>

#include "core/graph/builder.h"

namespace tc::testing {

//! A tensor of this shape holding these values (row-major).
template <class T>
Tensor<T> tensorOf(Shape shape, std::vector<T> values) {
  return Tensor<T>(std::move(shape), std::move(values));
}

//! A scalar (shape []) holding `value`.
template <class T>
Tensor<T> scalarOf(T value) {
  return tensorOf<T>({}, {value});
}

//! The attributes of a `scale` node by `c`.
template <class T>
Attrs<T> scaleBy(T c) {
  Attrs<T> attrs;
  attrs.c = c;
  return attrs;
}

//! A builder over inputs of these shapes; requires shapes a graph accepts.
template <class T>
GraphBuilder<T> builderFor(std::vector<Shape> inputs) {
  return *GraphBuilder<T>::create(std::move(inputs));
}

//! A seed pack of zeros with `seed` at `position`.
template <class T>
Pack<T> seedAt(const Graph<T>& graph, std::size_t position, const Tensor<T>& seed) {
  Pack<T> pack;
  for (std::size_t p = 0; p < graph.positionCount(); ++p) pack.push_back(Tensor<T>::filled(graph.shapeAt(p), T(0)));
  pack[position] = seed;
  return pack;
}

}  // namespace tc::testing
