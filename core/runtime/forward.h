#pragma once
// The runtime's forward evaluations: every node's value, in graph order, with or without the
// nodes' domain checks. Every checked runtime path (compileChecked, SavedGraph::lowerChecked,
// lowerToArrayChecked, lowerToTapeChecked) runs the one checked loop here, so they fail on
// exactly the same inputs with identical errors.
#include <cstddef>
#include <memory>

#include "core/graph/graph.h"
#include "core/support/result.h"

namespace tc {

//! Every node's forward value without domain checks. Precondition: the checked evaluation
//! succeeds on these inputs (on exact carriers an unchecked division by zero is a broken invariant).
template <class T>
std::shared_ptr<const Context<T>> evaluateUnchecked(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data);

//! Checks inputs and data, then validates and evaluates each node once, in graph order; the
//! first error wins and names the node ("node 5 (log): ..."). The context begins with the inputs
//! themselves: a caller that hands them over (std::move) saves copying them.
template <class T>
Result<std::shared_ptr<const Context<T>>> evaluateChecked(const Graph<T>& graph, Pack<T> inputs,
                                                          const Data<T>& data);

//! evaluateChecked that also calls `onNode(position, context)` right after each node's value has
//! joined the context (which then holds positions 0..position), for a caller that builds
//! something per node alongside, such as a tape.
template <class T, class OnNode>
Result<std::shared_ptr<const Context<T>>> evaluateChecked(const Graph<T>& graph, Pack<T> inputs,
                                                          const Data<T>& data, OnNode&& onNode);

}  // namespace tc
