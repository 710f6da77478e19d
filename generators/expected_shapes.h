#pragma once
// The shape a node of each op should have, stated a second time: docs/semantics.md §2.1's
// "args → out" column, written here apart from the ops' shape rules (core/ops), which the loader and
// the generator's node builder run. A run compares the two on every case before anything is
// evaluated (docs/semantics.md §3.2): a shape rule that gives a node the wrong shape then fails the
// case, shrunk, instead of stopping the run inside a forward that fills a tensor of the wrong size.
#include <optional>
#include <string>

#include "core/graph/graph.h"

namespace tc::gen {

//! The shape node `node` of `graph` should have, from its arguments' shapes (as `graph` gives them),
//! its attributes and the graph's index lists. Nullopt for opaque programs, whose registry entry
//! alone says, and where the arguments are outside the op's contract (its rule refuses those).
template <class T>
std::optional<Shape> expectedShape(const Graph<T>& graph, const Node<T>& node);

//! The first node whose shape in `graph` (the loader's) differs from expectedShape's, as
//! "node 3 (concat0): the op's shape rule gives [5, 2], the op table says [4, 2]"; nullopt when every
//! node agrees.
template <class T>
std::optional<std::string> shapeDisagreement(const Graph<T>& graph);

}  // namespace tc::gen
