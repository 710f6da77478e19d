#pragma once
// Seed packs: one tensor per position of a graph (docs/semantics.md §1.1), zero unless seeded.
#include "core/graph/graph.h"
#include "core/ops/kernels.h"

namespace tc {

//! A pack of zeros shaped like every position of `graph`.
template <class T>
Pack<T> zeroSeedPack(const Graph<T>& graph) {
  Pack<T> pack;
  pack.reserve(graph.positionCount());
  for (std::size_t p = 0; p < graph.positionCount(); ++p) pack.push_back(kernels::zeros<T>(graph.shapeAt(p)));
  return pack;
}

//! The pack that holds `seed` at `position` and zeros elsewhere.
template <class T>
Pack<T> singleSeedPack(const Graph<T>& graph, std::size_t position, const Tensor<T>& seed) {
  Pack<T> pack = zeroSeedPack(graph);
  pack[position] = seed;
  return pack;
}

}  // namespace tc
