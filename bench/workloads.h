#pragma once
// Benchmark workloads, built through the ordinary GraphBuilder.
#include <cstddef>
#include <string>

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

//! A [n, n] × [n, n] matmul on double, the inputs small values from the same LCG as mlp's.
struct Matmul {
  Graph<double> graph;
  Pack<double> inputs;
};
Matmul matmul(std::size_t n);

//! The text of a case file: a chain of `nodes` nodes (neg, relu, scale, square and add in turn,
//! each on the previous position) on a [4] input with values, as a user's graph file has it.
std::string chainDocument(std::size_t nodes);

}  // namespace tc::bench
