#pragma once
// The exact domain (docs/semantics.md §1.12): IEEE cases on which every correct engine computes
// the same bits whatever its evaluation order, because no step of any order rounds. The checker
// is conservative: it proves this or rejects the case, naming the first step it cannot prove.
#include "core/graph/graph.h"
#include "core/support/result.h"

namespace tc::spec {

//! Succeeds when every value of the case is exact in every evaluation order on T (double or
//! float): every forward value, cotangent, backward term, local sum and gradient of the dense
//! semantics (eval, then backpropAllCtx on `seeds`), and every partial result of every order of
//! their sums and products (reversed, pairwise, interleaved, per-edge accumulation of repeated
//! arguments, products reassociated). Checks the inputs, data and seed pack as `backpropAll`
//! does, then rejects, in this order: an op outside the exact domain ("node 2 (exp): not in the
//! exact domain: needs transcendental functions"; an opaque program without a GridBound<T>
//! definition); a non-finite input, data, attribute or seed value ("input 0 value 2 is nan, not
//! finite"); the first forward value that some order may round ("node 3 (mul): the product needs
//! 54 significant bits, double has 53"); then, in the dense pass's order, the first cotangent or
//! contribution that some order may round ("node 4 (mul), contribution to position 0: ...",
//! "gradient at position 1: the sum needs 25 significant bits, float has 24"). A non-scalar
//! position names the value (", value 2"). The sign of an exact zero is not tracked: it is the
//! same in every order and grouping of the same sums and products, not when an engine drops +0
//! summands or multiplies products out over sums (docs/semantics.md §1.12).
//! The first of checkExactDomain's checks, which depends on the graph alone: every op is one the
//! exact domain has (GridBound<T> runs it; not the transcendental ones) and every opaque program
//! has a GridBound<T> definition. A failure ("node 2 (exp): not in the exact domain: needs
//! transcendental functions") holds for every case of the graph.
template <class T>
Result<void> checkOpsInExactDomain(const Graph<T>& graph);

template <class T>
Result<void> checkExactDomain(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data, const Pack<T>& seeds);

}  // namespace tc::spec
