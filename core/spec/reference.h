#pragma once
// The reference semantics (docs/semantics.md §1.5, §1.6): the simplest obviously-correct code, and the
// specification every runtime path is checked against.
#include "core/graph/graph.h"
#include "core/support/result.h"

namespace tc::spec {

//! The full context: the inputs, then each node's forward value computed from the context so
//! far. Each node's domain check runs just before its forward value; the first failure wins.
template <class T>
Result<Context<T>> eval(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data);

//! Gradients for every position from a seed pack over all positions, in the literal dense
//! order: nodes in reverse creation order; at node k every earlier position p, ascending, gets
//! `G[p] = G[p] + c[p]`, zero contributions included. Quadratic by design.
template <class T>
Pack<T> backpropAllCtx(const Graph<T>& graph, const Context<T>& context, const Data<T>& data, const Pack<T>& seed);

//! eval, then backpropAllCtx; fails with eval's error.
template <class T>
Result<Pack<T>> backpropAll(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data, const Pack<T>& seed);

}  // namespace tc::spec
