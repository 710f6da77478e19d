#pragma once
#include <fmt/format.h>

#include <algorithm>

#include "core/support/mutants.h"
#include "core/graph/node_program.h"
#include "core/graph/opaque.h"
#include "core/ops/library.hpp"

namespace tc {

template <class T>
Requirement requirementOf(OpKind kind, const Attrs<T>& attrs) {
  if (kind == OpKind::opaque) return attrs.opaque->needs;
  return ops::visitOp(kind, [](auto op) { return decltype(op)::needs; });
}

template <class T>
std::size_t arityOf(OpKind kind, const Attrs<T>& attrs) {
  if (kind == OpKind::opaque) return attrs.opaque->arity;
  return ops::visitOp(kind, [](auto op) -> std::size_t {
    if constexpr (requires { decltype(op)::arity; }) return decltype(op)::arity;
    else return 0;
  });
}

// Calls `f(op)` only when the carrier meets the op's requirement; the builder guarantees it,
// so reaching the other branch is a broken invariant.
template <class T, class R, class F>
R dispatchSupported(OpKind kind, F&& f) {
  return ops::visitOp(kind, [&](auto op) -> R {
    if constexpr (satisfies(Carrier<T>::caps, decltype(op)::needs)) {
      return f(op);
    } else {
      assert(false && "op not supported by this carrier reached a local program");
      return R{};
    }
  });
}

template <class T>
Result<Shape> inferShape(OpKind kind, const ShapeCall<T>& call) {
  return dispatchSupported<T, Result<Shape>>(kind, [&](auto op) { return decltype(op)::shape(call); });
}

template <class T>
DomainError validateNode(const OpCall<T>& call) {
  return dispatchSupported<T, DomainError>(call.node.op, [&](auto op) { return decltype(op)::validate(call); });
}

template <class T>
Tensor<T> forwardNode(const OpCall<T>& call) {
  return dispatchSupported<T, Tensor<T>>(call.node.op, [&](auto op) { return decltype(op)::forward(call); });
}

template <class T>
void nodeTerms(const OpCall<T>& call, const Tensor<T>& out, const Tensor<T>& ct, Terms<T>& terms) {
  dispatchSupported<T, int>(call.node.op, [&](auto op) {
    decltype(op)::terms(call, out, ct, terms);
    return 0;
  });
}

namespace detail {

template <class T>
ArgValues<T> argumentValues(const Node<T>& node, std::span<const Tensor<T>> context) {
  ArgValues<T> args;
  for (std::size_t p : node.args) args.push_back(&context[p]);
  return args;
}

}  // namespace detail

template <class T>
LocalContribution<T> localContribution(const Graph<T>& graph, std::span<const Tensor<T>> context, const Data<T>& data,
                                       std::size_t position, const Tensor<T>& ct) {
  const Node<T>& node = graph.nodeAt(position);
  LocalContribution<T> result;
  if (node.op == OpKind::opaque) {
    result.isDense = true;
    result.dense = node.attrs.opaque->program({context.first(position), node, context[position], ct});
    assert(result.dense.size() == position && "an opaque program returns one tensor per earlier position");
    return result;
  }
  auto args = detail::argumentValues(node, context);
  OpCall<T> call{node, {args.data(), args.size()}, graph.schema, data};
  Terms<T> terms;
  nodeTerms(call, context[position], ct, terms);
  // Local sums: terms on one position add left to right before they reach the gradient.
  for (Term<T>& term : terms) {
    std::size_t target = node.args[term.arg];
    auto existing = std::find_if(result.support.begin(), result.support.end(),
                                 [&](const auto& entry) { return entry.first == target; });
    if (existing == result.support.end() || TC_MUTANT(18)) result.support.emplace_back(target, std::move(term.value));
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
  if (node.op == OpKind::opaque) return fmt::format("node {} (opaque {})", position, node.attrs.opaque->name);
  return fmt::format("node {} ({})", position, opName(node.op));
}

template <class T>
Result<Tensor<T>> validateAndForward(const Graph<T>& graph, std::span<const Tensor<T>> context, const Data<T>& data,
                                     std::size_t position) {
  const Node<T>& node = graph.nodeAt(position);
  auto args = detail::argumentValues(node, context);
  OpCall<T> call{node, {args.data(), args.size()}, graph.schema, data};
  if (DomainError error = validateNode(call)) return fail(describeNode(graph, position) + ": " + *error);
  return forwardNode(call);
}

}  // namespace tc
