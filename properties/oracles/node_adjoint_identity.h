#pragma once
// Oracle: the adjoint identity node by node. At every node k, with an independent direction v_a
// for each argument position a and a cotangent ct, <ct, J_k·v> == Σ_a <term_a(ct), v_a>, where
// J_k·v comes from node k's forward code on dual numbers and the terms from its reverse program
// (localContribution). Every node of every case is checked on its own, so a wrong term shows even
// where no input reaches the node or the output does not depend on it. At a kink the directions
// are chosen along which the node is differentiable (zero at relu/abs zeros and clamp bounds,
// equal on both sides of a max/min tie: the op definitions' kink sets), so kink conventions are
// checked too. Non-linear opaque nodes are skipped; the case is skipped only if every node is. In
// a case that fails a domain check, the nodes before the failing one are checked.
#include <fmt/ranges.h>

#include <map>
#include <set>

#include "core/graph/node_program.h"
#include "core/io/listing.h"
#include "core/ops/library.hpp"
#include "core/spec/reference.h"
#include "properties/compare.hpp"
#include "properties/oracles/dual_forward.h"

namespace tc::props {

//! Node k's probes for one probe set: a direction per earlier position, and a cotangent. Only the
//! arguments' directions are tensors: the others are zero, never materialized (a node's forward
//! reads only its arguments, and a term at any other position meets a zero direction, which on
//! the exact carriers adds exactly 0), so a node costs its arguments, not its position.
template <class T>
struct NodeProbe {
  Pack<T> directions;
  Tensor<T> ct;
};

template <class T>
NodeProbe<T> nodeProbe(const Case<T>& c, const Context<T>& context, std::size_t k, std::size_t variant) {
  // Directions per argument position (a repeated argument moves once), zero elsewhere. They
  // depend on the argument's slot, not on positions, so shrinking keeps a failure failing.
  const auto& args = c.graph.nodeAt(k).args;
  Pack<T> directions;
  for (std::size_t p = 0; p < k; ++p) {
    auto slot = static_cast<std::size_t>(std::find(args.begin(), args.end(), p) - args.begin());
    directions.push_back(slot < args.size() ? probeCotangents<T>(c.graph.shapeAt(p), 1 + 2 * slot + 5 * variant)[1]
                                            : Tensor<T>());
  }
  smoothDirectionsAtKinks(c.graph, context, c.data, k, directions);
  return {std::move(directions), probeCotangents<T>(c.graph.shapeAt(k), 3 * variant)[1]};
}

//! J_k·v: node k's tangent when its arguments move along `directions` (the other positions are
//! not read).
template <class T>
Tensor<T> nodeTangent(const Case<T>& c, const Context<T>& context, const DualGraph<T>& dual, std::size_t k,
                      const Pack<T>& directions) {
  Context<Dual<T>> lifted(k);
  for (std::size_t p : c.graph.nodeAt(k).args) lifted[p] = liftTensor(context[p], &directions[p].values);
  return tangentOf(dual.forward(k, lifted));
}

//! Node k's reverse program on `ct` as one term (local sum) per position it writes.
template <class T>
std::map<std::size_t, Tensor<T>> termsOf(const Case<T>& c, const Context<T>& context, std::size_t k, const Tensor<T>& ct) {
  auto local = localContribution<T>(c.graph, context, c.data, k, ct);
  std::map<std::size_t, Tensor<T>> terms;
  if (local.isDense)
    for (std::size_t p = 0; p < k; ++p) terms.emplace(p, local.dense[p]);
  else
    for (const auto& [p, term] : local.support) terms.emplace(p, term);
  return terms;
}

//! Notes and details at argument position a of node k: its direction and term, blamed when the
//! identity fails with a alone moving (it is linear in the directions, so it holds per argument).
template <class T>
void explainArgument(const Case<T>& c, const Context<T>& context, const DualGraph<T>& dual, std::size_t k,
                     const NodeProbe<T>& probe,
                     const std::map<std::size_t, Tensor<T>>& terms, std::size_t a, Verdict& verdict,
                     std::vector<std::string>& details) {
  Pack<T> alone;
  for (std::size_t p = 0; p < k; ++p)
    alone.push_back(p == a ? probe.directions[p] : Tensor<T>::filled(probe.directions[p].shape, zero<T>()));
  const Tensor<T> term = terms.contains(a) ? terms.at(a) : Tensor<T>::filled(probe.directions[a].shape, zero<T>());
  const T forward = innerProduct(probe.ct, nodeTangent(c, context, dual, k, alone));
  const T reverse = innerProduct(term, probe.directions[a]);
  const bool holds = agree(forward, reverse);
  const std::string termLabel = fmt::format("term of node {}", k);
  verdict.notes[a].push_back(noteLine("v", textColumns(termLabel), abbreviatedValues(probe.directions[a])));
  verdict.notes[a].push_back(
      noteLine(termLabel, textColumns(termLabel), abbreviatedValues(term) + (holds ? "" : "   <- blamed")));
  std::string detail = fmt::format("position {}: v = {}, term = {}", a, bracketed(probe.directions[a]), bracketed(term));
  if (!holds) {
    verdict.blamed.insert(a);
    detail += fmt::format("; with it alone moving <ct, J·v> = {} but <term, v> = {}", displayValue(forward), displayValue(reverse));
  }
  details.push_back(std::move(detail));
}

//! The failure at node k with every quantity it compares: ct and J·v at the node, v and the term
//! at each argument.
template <class T>
Verdict nodeAdjointFailure(const Case<T>& c, const Context<T>& context, const DualGraph<T>& dual, std::size_t k,
                           const NodeProbe<T>& probe, const Tensor<T>& tangent, const T& forward, const T& reverse) {
  Verdict verdict = Verdict::fail(fmt::format("{}: <ct, J·v> = {} but the terms give <Jᵀ·ct, v> = {}; ct = {}, J·v = {}",
                                              describeNode(c.graph, k), displayValue(forward), displayValue(reverse),
                                              bracketed(probe.ct), bracketed(tangent)),
                                  {k});
  verdict.notes[k] = {noteLine("ct", 3, abbreviatedValues(probe.ct) + "   <- blamed"),
                      noteLine("J·v", 3, abbreviatedValues(tangent))};
  const auto terms = termsOf(c, context, k, probe.ct);
  std::vector<std::string> details;
  for (std::size_t a : std::set<std::size_t>(c.graph.nodeAt(k).args.begin(), c.graph.nodeAt(k).args.end()))
    explainArgument(c, context, dual, k, probe, terms, a, verdict, details);
  if (!details.empty()) verdict.why += fmt::format("; {}", fmt::join(details, "; "));
  return verdict;
}

//! Empty when node k satisfies the identity for probe set `variant`, else the failure.
template <class T>
std::optional<Verdict> nodeAdjointDifference(const Case<T>& c, const Context<T>& context, const DualGraph<T>& dual,
                                             std::size_t k, std::size_t variant) {
  const NodeProbe<T> probe = nodeProbe(c, context, k, variant);
  const Tensor<T> tangent = nodeTangent(c, context, dual, k, probe.directions);
  const T forward = innerProduct(probe.ct, tangent);
  T reverse = zero<T>();
  const auto& args = c.graph.nodeAt(k).args;
  for (const auto& [p, term] : termsOf(c, context, k, probe.ct))
    if (std::find(args.begin(), args.end(), p) != args.end()) reverse = reverse + innerProduct(term, probe.directions[p]);
  if (agree(forward, reverse)) return std::nullopt;
  return nodeAdjointFailure(c, context, dual, k, probe, tangent, forward, reverse);
}

//! The values of the inputs and of the nodes before the first whose domain check fails (every
//! node's when none does), each node evaluated as the reference does.
template <class T>
Context<T> evaluatedPrefix(const Case<T>& c) {
  Context<T> context(c.inputs->begin(), c.inputs->end());
  for (std::size_t k = c.graph.inputs.size(); k < c.graph.positionCount(); ++k) {
    auto value = validateAndForward(c.graph, std::span<const Tensor<T>>(context), c.data, k);
    if (!value) break;
    context.push_back(std::move(*value));
  }
  return context;
}

template <class T>
Verdict node_adjoint_identity(const Case<T>& c) {
  // The nodes before a domain failure have their values, and each is checked on its own.
  const Context<T> context = evaluatedPrefix(c);
  if (context.size() == c.graph.inputs.size() && context.size() < c.graph.positionCount())
    return Verdict::skip("domain failure");
  DualGraph<T> dual(c);
  std::size_t checked = 0;
  std::string lastReason;
  for (std::size_t k = c.graph.inputs.size(); k < context.size(); ++k) {
    const Node<T>& node = c.graph.nodeAt(k);
    if (!ops::linearInCotangent(node.op, node.attrs)) {
      lastReason = "non-linear opaque program";
      continue;
    }
    ++checked;
    // Two probe sets: one alone can be orthogonal to a wrong term by chance.
    for (std::size_t variant = 0; variant < 2; ++variant)
      if (auto failure = nodeAdjointDifference(c, context, dual, k, variant)) return *failure;
  }
  if (checked == 0) return Verdict::skip(lastReason.empty() ? "no node to check" : lastReason);
  return Verdict::pass();
}

}  // namespace tc::props
