#pragma once
// Lowering a graph to a runtime tape (docs/semantics.md §1.7): one leaf per input, then one tape node per
// graph node whose backward returns the node's dense contribution for every earlier position.
#include <memory>

#include "core/graph/graph.h"
#include "core/runtime/forward.h"
#include "core/runtime/tape.h"

namespace tc {

//! A lowered graph: the tape and the indexed context its closures read.
template <class T>
struct TapeAndContext {
  Tape<T> tape;
  std::shared_ptr<const Context<T>> context;
};

//! Lowers without domain checks. Precondition: the graph's checked evaluation succeeds on these
//! inputs (on exact carriers an unchecked division by zero is a broken invariant).
template <class T>
TapeAndContext<T> lowerGraphDataToTape(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data);

//! Validates and evaluates every node into an indexed array (evaluateChecked), then builds the
//! tape from it.
template <class T>
Result<TapeAndContext<T>> lowerToArrayChecked(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data);

//! Builds the tape node by node during the checked forward: each node's tape node right after
//! its value.
template <class T>
Result<TapeAndContext<T>> lowerToTapeChecked(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data);

//! The tape leaf of an input: no parents, an empty backward.
template <class T>
TapeNode<T> leafTapeNode(const Tensor<T>& value);

//! The tape node of graph node `position`: its backward checks the upstream shape and returns
//! the node's dense contribution for every earlier position, ascending. The graph and data must
//! outlive the tape; the context is shared.
template <class T>
TapeNode<T> denseTapeNode(const Graph<T>& graph, const Data<T>& data, std::shared_ptr<const Context<T>> context,
                          std::size_t position);

}  // namespace tc
