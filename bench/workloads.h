#pragma once
// Benchmark workloads, built through the ordinary GraphBuilder.
#include <cstddef>

#include "core/graph/graph.h"

namespace tc::bench {

//! A chain of `nodes` relus on a [4] input; the input is [-2, -0, 0.5, 3].
struct ReluChain {
  Graph<double> graph;
  Pack<double> inputs;
};
ReluChain reluChain(std::size_t nodes);

//! `nodes` scalar nodes of which `support` (spread evenly) form the output's ancestry; the
//! others form an unrelated chain. The output is the last support node.
template <class T>
struct SupportGraph {
  Graph<T> graph;
  Pack<T> inputs;
  std::size_t output;
};
template <class T>
SupportGraph<T> supportGraph(std::size_t nodes, std::size_t support);

//! An MLP-like graph: h = relu(linear(W_i, h, b_i)) for `depth` layers of `width`.
struct Mlp {
  Graph<double> graph;
  Pack<double> inputs;
};
Mlp mlp(std::size_t width, std::size_t depth);

}  // namespace tc::bench
