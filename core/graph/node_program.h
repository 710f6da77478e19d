#pragma once
// A node's local program, as every layer (reference, tape, saved graph, compiled) runs it:
// validation, forward, and the dense contribution of docs/semantics.md §1.4 — plus the node-level
// questions the oracles ask (kinks, labels). Each is answered by the node's op definition.
#include <algorithm>
#include <span>
#include <string>

#include "core/carriers/carrier.h"
#include "core/graph/graph.h"
#include "core/ops/accuracy.h"
#include "core/ops/op_call.h"

namespace tc {

//! The op's shape rule on checked argument shapes; the error says why (without the node prefix).
template <class T>
Result<Shape> inferShape(OpKind kind, const ShapeCall<T>& call);

//! The call an op definition sees for a node of `graph`, with argument values `args` (in
//! argument order).
template <class T>
OpCall<T> callOf(const Graph<T>& graph, const Node<T>& node, const ArgValues<T>& args, const Data<T>& data) {
  return OpCall<T>{node.attrs, node.shape, {args.data(), args.size()}, graph.schema, data, graph.conventions};
}

//! The largest size (`Carrier<T>::bits`) among the tensor's values; 0 for an empty tensor. (The
//! largest among a node's constants, `largestAttributeBits`, is in node_program.hpp.)
template <GrowingCarrier T>
std::size_t largestBits(const Tensor<T>& t) {
  std::size_t bits = 0;
  for (const T& x : t.values) bits = std::max(bits, Carrier<T>::bits(x));
  return bits;
}

//! The node's forward value.
template <class T>
Tensor<T> forwardNode(OpKind kind, const OpCall<T>& call);

//! A compact node's terms, in declared order.
template <class T>
void nodeTerms(OpKind kind, const OpCall<T>& call, const Tensor<T>& out, const Tensor<T>& ct, Terms<T>& terms);

//! A node's dense contribution to earlier positions, as docs/semantics.md §1.4 defines it.
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

//! The node's forward value, without its domain check (callers that skip it know why).
template <class T>
Tensor<T> forwardAt(const Graph<T>& graph, std::span<const Tensor<T>> context, const Data<T>& data,
                    std::size_t position);

//! The op's forward on the values of `call` into `out`, after its domain check and before the
//! carriers' ceilings are checked on its result (validateAndForward's checks, for a call built by
//! hand); the reason when one fails, and then `out` holds no checked value.
template <class T>
DomainError checkedForward(OpKind kind, const OpCall<T>& call, Tensor<T>& out);

//! Checked validation then forward for the node at `position`: the error names the position
//! and op ("node 5 (log): input contains values <= 0 or NaN").
template <class T>
Result<Tensor<T>> validateAndForward(const Graph<T>& graph, std::span<const Tensor<T>> context, const Data<T>& data,
                                     std::size_t position);

//! validateAndForward writing the value into `out` (the runtime's forward fills its context in
//! place); on failure `out` holds no checked value.
template <class T>
Result<void> validateAndForwardInto(const Graph<T>& graph, std::span<const Tensor<T>> context, const Data<T>& data,
                                    std::size_t position, Tensor<T>& out);

//! What an IEEE forward of the node at `position` may err by beyond its op's accuracyUlps, per
//! element (ops::accumulatedError): computed on an enclosing carrier T from the argument values in
//! `context` and the exact output `y`, for the IEEE format `model` describes. Empty when the op
//! accumulates nothing. Instantiated for the interval carrier.
template <class T>
Tensor<T> accumulatedErrorAt(const Graph<T>& graph, std::span<const Tensor<T>> context, const Data<T>& data,
                             std::size_t position, const Tensor<T>& y, const ops::RoundingModel<T>& model);

//! A compact node's terms and what an IEEE evaluation of each may err by (ops::termError), in
//! the same order.
template <class T>
struct TermsAndError {
  Terms<T> terms;
  Terms<T> error;
};

//! The terms of the compact node at `position` for the argument values in `context`, a forward
//! value `y` (which may enclose more than the node's exact value) and the cotangent `ct`, with
//! their error bounds for the IEEE format `model` describes. Instantiated for the interval carrier.
template <class T>
TermsAndError<T> termsAndErrorAt(const Graph<T>& graph, std::span<const Tensor<T>> context, const Data<T>& data,
                                 std::size_t position, const Tensor<T>& y, const Tensor<T>& ct,
                                 const ops::RoundingModel<T>& model);

//! "node 5 (log)", "node 5 (opaque const3)": how every message names a node.
inline std::string describeNode(std::size_t position, std::string_view label) {
  return fmt::format("node {} ({})", position, label);
}
template <class T>
std::string describeNode(const Graph<T>& graph, std::size_t position);

//! The position a message names when it starts as describeNode writes ("node 5 (log): ..."), so
//! that a failure quoting an error can be blamed on that node; nullopt otherwise.
inline std::optional<std::size_t> nodeNamedBy(std::string_view message) {
  constexpr std::string_view prefix = "node ";
  if (!message.starts_with(prefix)) return std::nullopt;
  std::size_t position = 0;
  auto [end, error] = std::from_chars(message.data() + prefix.size(), message.data() + message.size(), position);
  if (error != std::errc() || !std::string_view(end, message.data() + message.size()).starts_with(" (")) return std::nullopt;
  return position;
}

//! Whether the node at `position` sits at one of its op's kinks at these values
//! (docs/semantics.md §2: relu and abs at 0, clamp at its bounds, max/min ties).
template <class T>
bool atKink(const Graph<T>& graph, const Context<T>& context, const Data<T>& data, std::size_t position);

//! Rewrites the probe directions of the node's arguments (`directions`, one per earlier
//! position) at its kinks to directions along which the node is differentiable.
template <class T>
void smoothDirectionsAtKinks(const Graph<T>& graph, const Context<T>& context, const Data<T>& data,
                             std::size_t position, Pack<T>& directions);

}  // namespace tc
