#pragma once
// A node's local program, as every layer (reference, tape, saved graph, compiled) runs it:
// validation, forward, and the dense contribution of DESIGN 1.4.
#include <span>

#include "core/carriers/carrier.h"
#include "core/ops/op_call.h"

namespace tc {

//! The arithmetic a node needs from its carrier (an opaque node's comes from its entry).
template <class T>
Requirement requirementOf(OpKind kind, const Attrs<T>& attrs);

//! The number of arguments a node of this kind takes.
template <class T>
std::size_t arityOf(OpKind kind, const Attrs<T>& attrs);

//! The op's shape rule on checked argument shapes; the error says why (without the node prefix).
template <class T>
Result<Shape> inferShape(OpKind kind, const ShapeCall<T>& call);

//! The node's domain check on its argument values.
template <class T>
DomainError validateNode(const OpCall<T>& call);

//! The node's forward value.
template <class T>
Tensor<T> forwardNode(const OpCall<T>& call);

//! A compact node's terms, in declared order.
template <class T>
void nodeTerms(const OpCall<T>& call, const Tensor<T>& out, const Tensor<T>& ct, Terms<T>& terms);

//! A node's dense contribution to earlier positions, as DESIGN 1.4 defines it.
template <class T>
struct LocalContribution {
  //! Compact nodes: the left-to-right local sum for each position some term targets, ascending.
  boost::container::small_vector<std::pair<std::size_t, Tensor<T>>, 3> support;
  //! Opaque nodes: one tensor per earlier position.
  Pack<T> dense;
  bool isDense = false;
};

//! The contribution of node at `position`, given the context (at least positions 0..position)
//! and its cotangent.
template <class T>
LocalContribution<T> localContribution(const Graph<T>& graph, std::span<const Tensor<T>> context, const Data<T>& data,
                                       std::size_t position, const Tensor<T>& ct);

//! Checked validation then forward for the node at `position`: the error names the position
//! and op ("node 5 (log): input contains values <= 0 or NaN").
template <class T>
Result<Tensor<T>> validateAndForward(const Graph<T>& graph, std::span<const Tensor<T>> context, const Data<T>& data,
                                     std::size_t position);

//! "node 5 (log)", or "node 5 (opaque const3)".
template <class T>
std::string describeNode(const Graph<T>& graph, std::size_t position);

}  // namespace tc
