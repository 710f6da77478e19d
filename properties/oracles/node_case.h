#pragma once
// A node of a case cut out as a case of its own, for the oracles that probe one node on the
// engine under test (kink_conventions, domain_errors).
#include <algorithm>
#include <cassert>

#include "core/graph/builder.hpp"

namespace tc::props {

//! Node k of a case as a case of its own: its distinct arguments (`sources`, positions in the
//! original case) are the inputs, with the values `context` gives them, and the node is the output.
template <class T>
struct NodeCase {
  std::vector<std::size_t> sources;
  Graph<T> graph;
  Pack<T> inputs;
};

template <class T>
NodeCase<T> nodeCase(const Graph<T>& graph, const Context<T>& context, std::size_t k) {
  const Node<T>& node = graph.nodeAt(k);
  NodeCase<T> out;
  std::vector<std::size_t> args;
  std::vector<Shape> shapes;
  for (std::size_t source : node.args) {
    auto found = std::find(out.sources.begin(), out.sources.end(), source);
    args.push_back(static_cast<std::size_t>(found - out.sources.begin()));
    if (found != out.sources.end()) continue;
    out.sources.push_back(source);
    shapes.push_back(graph.shapeAt(source));
    out.inputs.push_back(context[source]);
  }
  auto builder = GraphBuilder<T>::create(shapes);
  assert(builder && "the shapes of a well-typed graph's positions are valid inputs");
  [[maybe_unused]] auto added = builder->add(node.op, args, node.attrs);
  assert(added && "a node of a well-typed graph is well typed on its argument shapes");
  out.graph = std::move(*builder).build();
  out.graph.conventions = graph.conventions;
  return out;
}

}  // namespace tc::props
