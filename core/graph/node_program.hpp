#pragma once
#include <fmt/format.h>

#include <algorithm>

#include "core/support/mutants.h"
#include "core/graph/node_program.h"
#include "core/ops/library.hpp"

namespace tc {

template <class T>
Result<Shape> inferShape(OpKind kind, const ShapeCall<T>& call) {
  return ops::visitSupportedOp<T, Result<Shape>>(kind, [&](auto op) { return decltype(op)::shape(call); });
}

template <class T>
Tensor<T> forwardNode(OpKind kind, const OpCall<T>& call) {
  return ops::visitSupportedOp<T, Tensor<T>>(kind, [&](auto op) { return decltype(op)::forward(call); });
}

template <class T>
void nodeTerms(OpKind kind, const OpCall<T>& call, const Tensor<T>& out, const Tensor<T>& ct, Terms<T>& terms) {
  ops::visitSupportedOp<T, int>(kind, [&](auto op) {
    decltype(op)::terms(call, out, ct, terms);
    return 0;
  });
}

namespace detail {

template <class T>
ArgValues<T> argumentValues(const Node<T>& node, std::span<const Tensor<T>> context) {
  ArgValues<T> args(node.args.size(), boost::container::default_init);  // every slot written below
  const Tensor<T>** at = args.data();
  for (std::size_t p : node.args) *at++ = &context[p];
  return args;
}

}  // namespace detail

template <class T>
LocalContribution<T> localContribution(const Graph<T>& graph, std::span<const Tensor<T>> context, const Data<T>& data,
                                       std::size_t position, const Tensor<T>& ct) {
  const Node<T>& node = graph.nodeAt(position);
  LocalContribution<T> result;
  if (ops::isDense(node.op)) {
    result.isDense = true;
    result.dense = node.attrs.opaque->program({context.first(position), node.args, context[position], ct});
    assert(result.dense.size() == position && "an opaque program returns one tensor per earlier position");
    return result;
  }
  auto args = detail::argumentValues(node, context);
  Terms<T> terms;
  nodeTerms(node.op, callOf<T>(graph, node, args, data), context[position], ct, terms);
  // Local sums: terms on one position add left to right before they reach the gradient.
  for (Term<T>& term : terms) {
    std::size_t target = node.args[term.arg];
    auto existing = std::find_if(result.support.begin(), result.support.end(),
                                 [&](const auto& entry) { return entry.first == target; });
    if (existing == result.support.end() || TC_MUTANT(local_sum_not_formed)) result.support.emplace_back(target, std::move(term.value));
    else kernels::addInto(existing->second, term.value);
  }
  // Ascending positions; an insertion sort keeps equal keys stable and needs no buffer.
  for (std::size_t i = 1; i < result.support.size(); ++i)
    for (std::size_t j = i; j > 0 && result.support[j].first < result.support[j - 1].first; --j)
      std::swap(result.support[j], result.support[j - 1]);
  return result;
}

template <class T>
std::string describeNode(const Graph<T>& graph, std::size_t position) {
  const Node<T>& node = graph.nodeAt(position);
  return describeNode(TC_MUTANT(error_position_without_inputs) ? position - graph.inputs.size() : position, ops::nodeLabel(node.op, node.attrs));
}

template <class T>
Tensor<T> forwardAt(const Graph<T>& graph, std::span<const Tensor<T>> context, const Data<T>& data,
                    std::size_t position) {
  const Node<T>& node = graph.nodeAt(position);
  auto args = detail::argumentValues(node, context);
  return forwardNode(node.op, callOf<T>(graph, node, args, data));
}

//! The largest size among a node's constant values: its attributes that hold carrier values
//! (scale's c, clamp's bounds, a const's values); 0 when it has none.
template <GrowingCarrier T>
std::size_t largestAttributeBits(OpKind kind, const Attrs<T>& attrs) {
  std::size_t bits = 0;
  ops::forEachAttributeValue(kind, attrs, [&](const T& x) { bits = std::max(bits, Carrier<T>::bits(x)); });
  return bits;
}

namespace detail {

// On a growing carrier, why a node's values would outgrow kMaxExactBits, judged before the node
// runs from its arguments' sizes (a product's size is at most the sum of its factors', the op's
// degree rule) and its constants' (scale's c multiplies once), so that one node cannot take the
// arithmetic far past the ceiling. Sizes are held below the ceiling's double: no sum overflows.
template <class T>
DomainError outgrowsCeiling(OpKind kind, const OpCall<T>& call) {
  if constexpr (GrowingCarrier<T>) {
    constexpr std::size_t cap = 2 * kMaxExactBits;
    boost::container::small_vector<int, 4> sizes;
    for (const Tensor<T>* arg : call.args) sizes.push_back(static_cast<int>(std::min(largestBits(*arg), cap)));
    const int bound = ops::degree(kind, std::span<const int>(sizes.data(), sizes.size())) +
                      static_cast<int>(std::min(largestAttributeBits(kind, call.attrs), cap));
    if (bound > static_cast<int>(kMaxExactBits))
      return fmt::format("its values may need up to {} bits, more than the exact carriers' ceiling of {} bits", bound,
                         kMaxExactBits);
  }
  return std::nullopt;
}

// The same ceiling on the values a node made (sums of fractions grow past their degree rule),
// and on the interval carrier the range of its endpoints' exponents.
template <class T>
DomainError outgrewCeiling(const Tensor<T>& out) {
  if constexpr (GrowingCarrier<T>) {
    if (std::size_t bits = largestBits(out); bits > kMaxExactBits)
      return fmt::format("a value needs {} bits, more than the exact carriers' ceiling of {} bits", bits, kMaxExactBits);
  }
  if constexpr (requires(const T& x) { Carrier<T>::withinRange(x); }) {
    for (const T& x : out.values)
      if (!Carrier<T>::withinRange(x))
        return fmt::format("a value passes 2^±{}, the exact carriers' ceiling on interval endpoints", kMaxIntervalExponent);
  }
  return std::nullopt;
}

}  // namespace detail

// One visit of the op for its domain check and its forward (two would dispatch twice per node).
template <class T>
DomainError checkedForward(OpKind kind, const OpCall<T>& call, Tensor<T>& out) {
  return ops::visitSupportedOp<T, DomainError>(kind, [&](auto op) -> DomainError {
    using Op = decltype(op);
    if (DomainError error = Op::validate(call)) return error;
    if (DomainError error = detail::outgrowsCeiling(kind, call)) return error;
    out = Op::forward(call);
    return detail::outgrewCeiling(out);
  });
}

template <class T>
Result<void> validateAndForwardInto(const Graph<T>& graph, std::span<const Tensor<T>> context, const Data<T>& data,
                                    std::size_t position, Tensor<T>& out) {
  const Node<T>& node = graph.nodeAt(position);
  auto args = detail::argumentValues(node, context);
  if (DomainError error = checkedForward(node.op, callOf<T>(graph, node, args, data), out))
    return fail(describeNode(graph, position) + ": " + *error);
  return {};
}

template <class T>
Result<Tensor<T>> validateAndForward(const Graph<T>& graph, std::span<const Tensor<T>> context, const Data<T>& data,
                                     std::size_t position) {
  Tensor<T> out;
  if (auto ok = validateAndForwardInto(graph, context, data, position, out); !ok) return std::unexpected(ok.error());
  return out;
}

template <class T>
Tensor<T> accumulatedErrorAt(const Graph<T>& graph, std::span<const Tensor<T>> context, const Data<T>& data,
                             std::size_t position, const Tensor<T>& y, const ops::RoundingModel<T>& model) {
  const Node<T>& node = graph.nodeAt(position);
  auto args = detail::argumentValues(node, context);
  return ops::accumulatedError(node.op, callOf<T>(graph, node, args, data), y, model);
}

template <class T>
TermsAndError<T> termsAndErrorAt(const Graph<T>& graph, std::span<const Tensor<T>> context, const Data<T>& data,
                                 std::size_t position, const Tensor<T>& y, const Tensor<T>& ct,
                                 const ops::RoundingModel<T>& model) {
  const Node<T>& node = graph.nodeAt(position);
  auto args = detail::argumentValues(node, context);
  const OpCall<T> call = callOf<T>(graph, node, args, data);
  TermsAndError<T> out;
  nodeTerms(node.op, call, y, ct, out.terms);
  out.error = ops::termError(node.op, call, y, ct, model);
  return out;
}

template <class T>
bool atKink(const Graph<T>& graph, const Context<T>& context, const Data<T>& data, std::size_t position) {
  const Node<T>& node = graph.nodeAt(position);
  auto args = detail::argumentValues(node, std::span<const Tensor<T>>(context));
  OpCall<T> call = callOf<T>(graph, node, args, data);
  return ops::visitSupportedOp<T, bool>(node.op, [&](auto op) {
    using Op = decltype(op);
    if constexpr (requires { Op::kinkAt(call, std::size_t{}); }) {
      for (std::size_t i = 0; i < call.arg(0).size(); ++i)
        if (Op::kinkAt(call, i)) return true;
    }
    return false;
  });
}

template <class T>
void smoothDirectionsAtKinks(const Graph<T>& graph, const Context<T>& context, const Data<T>& data,
                             std::size_t position, Pack<T>& directions) {
  const Node<T>& node = graph.nodeAt(position);
  auto args = detail::argumentValues(node, std::span<const Tensor<T>>(context));
  OpCall<T> call = callOf<T>(graph, node, args, data);
  boost::container::small_vector<Tensor<T>*, 4> targets;
  for (std::size_t p : node.args) targets.push_back(&directions[p]);
  KinkDirections<T> along{{targets.data(), targets.size()}};
  ops::visitSupportedOp<T, int>(node.op, [&](auto op) {
    using Op = decltype(op);
    if constexpr (requires { Op::kinkAt(call, std::size_t{}); }) {
      for (std::size_t i = 0; i < call.arg(0).size(); ++i)
        if (Op::kinkAt(call, i)) Op::smoothAt(i, along);
    }
    return 0;
  });
}

}  // namespace tc
