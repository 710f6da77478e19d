#pragma once
// Oracle: the terms of every relu, abs, clamp, max and min node equal the kink table's
// (properties/oracles/kink_table.h, written apart from core/ops), at its kinks under the conventions the
// graph carries and everywhere else. Each such node is cut out as a one-node case — its distinct
// arguments become inputs holding the reference's values — and the engine under test runs it with
// two cotangents (a varied one, and on IEEE carriers one of -0, NaN, ±inf, 2^24), so a convention
// changed in one place fails on every engine, though every layer shares the op code. An engine
// whose profile does not declare its kink conventions is held to the table away from the kinks.
#include <fmt/ranges.h>

#include "core/graph/seed_pack.h"
#include "core/ops/library.hpp"
#include "core/spec/reference.h"
#include "properties/compare.hpp"
#include "properties/engines/engine_under_test.h"
#include "properties/oracles/kink_table.h"
#include "properties/oracles/node_case.h"

namespace tc::props {
namespace kinks {

//! The table's element `i` of node k.
template <class T>
Element<T> elementAt(const Node<T>& node, const Context<T>& context, std::size_t i, const T& ct) {
  const T& a = context[node.args[0]][i];
  const T& b = context[node.args.back()][i];
  return {a, b, node.attrs.lo ? &*node.attrs.lo : nullptr, node.attrs.hi ? &*node.attrs.hi : nullptr, ct};
}

//! "x = 0" or "a = 2, b = 2", and the clamp bounds.
template <class T>
std::string describeElement(const Row<T>& row, const Element<T>& e) {
  if (row.arity == 2) return fmt::format("a = {}, b = {}", displayValue(e.a), displayValue(e.b));
  if (e.lo) return fmt::format("x = {} (lo = {}, hi = {})", displayValue(e.a), displayValue(*e.lo), displayValue(*e.hi));
  return fmt::format("x = {}", displayValue(e.a));
}

//! The gradient the table gives each input of the node case: the dense pass's zero seed plus the
//! local sum of the terms at each argument slot holding that input.
template <class T>
Pack<T> tableGradients(const Row<T>& row, const Node<T>& node, const NodeCase<T>& cut, const Context<T>& context,
                       const Tensor<T>& ct, const Choices& choices) {
  Pack<T> out;
  for (std::size_t j = 0; j < cut.sources.size(); ++j) {
    std::vector<T> values;
    for (std::size_t i = 0; i < ct.size(); ++i) {
      auto terms = row.terms(elementAt(node, context, i, ct[i]), choices);
      std::optional<T> local;
      for (std::size_t slot = 0; slot < node.args.size(); ++slot)
        if (node.args[slot] == cut.sources[j]) local = local ? *local + terms[slot] : terms[slot];
      values.push_back(zero<T>() + *local);
    }
    out.push_back(Tensor<T>(cut.graph.inputs[j], std::move(values)));
  }
  return out;
}

//! Whether the element's value is one the engine is held to: away from a kink, or at one when
//! its conventions are declared.
template <class T>
bool judged(const Row<T>& row, const Element<T>& e, bool kinksDeclared) {
  return kinksDeclared || !row.atKink(e);
}

//! Empty when the table knows the op's choices, the specification's first; else what differs.
template <class T>
std::string tableDisagreement(const Row<T>& row, OpKind kind) {
  auto ops = ops::kinkChoices(kind);
  auto table = row.choiceNames();
  if (!std::equal(ops.begin(), ops.end(), table.begin(), table.end()))
    return fmt::format("the op library's kink choices of {} are [{}] but the kink table's are [{}]", row.op,
                       fmt::join(ops, ", "), fmt::join(table, ", "));
  return {};
}

//! The first judged element where the engine's gradient differs from the table's, as a failure
//! blamed on node k; nullopt when none does.
template <class T>
std::optional<Verdict> elementDifference(const EngineUnderTest<T>& subject, const Row<T>& row, const Graph<T>& graph,
                                         const Context<T>& context, std::size_t k, const NodeCase<T>& cut,
                                         const Tensor<T>& ct, const Choices& choices, const Pack<T>& engine) {
  const Node<T>& node = graph.nodeAt(k);
  const Pack<T> table = tableGradients(row, node, cut, context, ct, choices);
  for (std::size_t j = 0; j < cut.sources.size(); ++j)
    for (std::size_t i = 0; i < ct.size(); ++i) {
      const Element<T> e = elementAt(node, context, i, ct[i]);
      if (!judged(row, e, subject.profile->kinkConventionsDeclared) ||
          sameUnder(subject.policy, engine[j][i], table[j][i]))
        continue;
      std::string where = row.atKink(e) ? fmt::format("at its kink, choice '{}'", choices.kink) : "away from its kinks";
      if (!(e.a == e.a) || !(e.b == e.b))
        where += choices.nanPropagates ? ", NaN propagating" : ", NaN not propagating";
      return Verdict::fail(fmt::format("{} element {} ({}, ct = {}), {}: {} gives the gradient {} at position {} but "
                                       "the kink table gives {}",
                                       describeNode(graph, k), i, describeElement(row, e), displayValue(ct[i]), where,
                                       subject.engine.name(), displayValue(engine[j][i]), cut.sources[j],
                                       displayValue(table[j][i])),
                           {k, cut.sources[j]});
    }
  return std::nullopt;
}

//! Node k run alone on the engine with each cotangent, compared with the table.
template <class T>
std::optional<Verdict> nodeDifference(const EngineUnderTest<T>& subject, const Row<T>& row, const Graph<T>& graph,
                                      const Context<T>& context, std::size_t k) {
  const NodeCase<T> cut = nodeCase(graph, context, k);
  const OpKind kind = graph.nodeAt(k).op;
  const Choices choices{ops::kinkChoices(kind)[graph.conventions.kinkOf(kind)], graph.conventions.nanPropagates};
  auto execution = subject.engine.compile(cut.graph, cut.inputs, Data<T>{});
  if (!execution) return passFailed(subject.engine, fmt::format("compile of {} alone", describeNode(graph, k)), execution.error());
  const Pack<T> probes = probeCotangents<T>(graph.shapeAt(k), k);
  for (std::size_t probe = 1; probe < probes.size() - 1; ++probe) {  // not the zero one, nor the misshapen one
    Pack<T> seeds = zeroSeedPack(cut.graph);
    seeds.back() = probes[probe];
    auto gradients = (*execution)->backwardDense(seeds);
    if (!gradients) return passFailed(subject.engine, fmt::format("backwardDense of {} alone", describeNode(graph, k)), gradients.error());
    for (std::size_t j = 0; j < cut.sources.size(); ++j)
      if (j >= gradients->size() || (*gradients)[j].shape != cut.graph.inputs[j])
        return Verdict::fail(fmt::format("{}: backwardDense of {} alone gave no gradient of shape {} at position {}",
                                         subject.engine.name(), describeNode(graph, k),
                                         formatShape(cut.graph.inputs[j]), cut.sources[j]),
                             {k});
    if (auto failure = elementDifference(subject, row, graph, context, k, cut, probes[probe], choices, *gradients))
      return failure;
  }
  return std::nullopt;
}

}  // namespace kinks

template <class T>
Verdict kink_conventions(const EngineUnderTest<T>& subject, const Case<T>& c) {
  auto context = spec::eval(c.graph, *c.inputs, c.data);
  if (!context) return Verdict::skip("domain failure");
  std::size_t checked = 0;
  for (std::size_t k = c.graph.inputs.size(); k < c.graph.positionCount(); ++k) {
    const OpKind kind = c.graph.nodeAt(k).op;
    const kinks::Row<T>* row = kinks::rowOf<T>(opName(kind));
    if (!row) {
      if (ops::hasKinks(kind))
        return Verdict::fail(fmt::format("{}: the op has kinks but the kink table has no row for it", describeNode(c.graph, k)), {k});
      continue;
    }
    if (std::string disagreement = kinks::tableDisagreement(*row, kind); !disagreement.empty())
      return Verdict::fail(disagreement, {k});
    ++checked;
    if (auto failure = kinks::nodeDifference(subject, *row, c.graph, *context, k)) return *failure;
  }
  if (checked == 0) return Verdict::skip("no relu, abs, clamp, max or min node");
  return Verdict::pass();
}

}  // namespace tc::props
