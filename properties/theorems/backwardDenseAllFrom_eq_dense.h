#pragma once
// Theorem backwardDenseAllFrom_eq_dense: the single-output pass equals the dense pass on a single
// seed, and (for an engine that counts them) runs exactly the node programs of the visit set V of
// docs/semantics.md §1.9, computed here from the graph alone. An engine whose profile declares
// `ancestors` runs only the output's ancestors instead: its single-output pass must equal the
// reference on the graph restricted to them.
#include <algorithm>

#include "core/io/case_file.h"
#include "core/ops/library.hpp"
#include "core/graph/seed_pack.h"
#include "core/spec/reference.h"
#include "properties/compare.hpp"
#include "properties/engines/engine_under_test.h"

namespace tc::props {

//! |V|: with storage equality the output's ancestors through certified support (every argument
//! of a compact node whose op has terms: not detach) plus every node at or below the highest
//! opaque node; otherwise every node.
template <class T>
std::size_t expectedVisits(const Graph<T>& graph, std::size_t output) {
  if (!Carrier<T>::caps.storageEquality) return graph.nodes.size();
  std::size_t highestOpaque = 0;
  bool anyOpaque = false;
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
    if (ops::isDense(graph.nodeAt(p).op)) highestOpaque = p, anyOpaque = true;
  std::vector<bool> visited(graph.positionCount(), false);
  std::vector<bool> reached(graph.positionCount(), false);
  reached[output] = true;
  for (std::size_t p = graph.positionCount(); p-- > graph.inputs.size();) {
    bool inPrefix = anyOpaque && p <= highestOpaque;
    if (!reached[p] && !inPrefix) continue;
    visited[p] = true;
    const Node<T>& node = graph.nodeAt(p);
    if (!ops::hasTerms(node.op)) continue;
    for (std::size_t a : node.args) reached[a] = true;
  }
  return static_cast<std::size_t>(std::count(visited.begin(), visited.end(), true));
}

//! The graph with every node that is not an ancestor of `output` (through ops with terms) made an
//! inert constant of its value in `context`: what a pruning single-output pass differentiates.
template <class T>
Graph<T> restrictedToAncestors(const Graph<T>& graph, const Context<T>& context, std::size_t output) {
  std::vector<bool> ancestor(graph.positionCount(), false);
  ancestor[output] = true;
  for (std::size_t p = graph.positionCount(); p-- > graph.inputs.size();)
    if (ancestor[p] && ops::hasTerms(graph.nodeAt(p).op))
      for (std::size_t a : graph.nodeAt(p).args) ancestor[a] = true;
  Graph<T> restricted = graph;
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p) {
    if (ancestor[p]) continue;
    Node<T>& node = restricted.nodes[p - graph.inputs.size()];
    node.op = OpKind::constant, node.args.clear(), node.attrs = Attrs<T>{};
    node.attrs.shape = node.shape, node.attrs.values = context[p].values;
  }
  return restricted;
}

template <class T>
Verdict singleOutputOnAncestors(const EngineUnderTest<T>& subject, const Case<T>& c, const Execution<T>& execution) {
  const Tensor<T>& seed = c.seeds[c.output];
  auto single = execution.backwardSingle(c.output, seed);
  if (!single) return passFailed(subject.engine, "backwardSingle", single.error());
  auto context = spec::eval(c.graph, *c.inputs, c.data);
  if (!context) return Verdict::skip("domain failure");
  Pack<T> reference = spec::backpropAllCtx(restrictedToAncestors(c.graph, *context, c.output), *context, c.data,
                                           singleSeedPack(c.graph, c.output, seed));
  return comparePacks(Quantity::gradients, fmt::format("single output {} (ancestors)", c.output),
                      fmt::format("{} single", subject.engine.name()), single->gradients, "reference on ancestors",
                      reference, subject.policy);
}

template <class T>
Verdict backwardDenseAllFrom_eq_dense(const EngineUnderTest<T>& subject, const Case<T>& c) {
  auto execution = subject.engine.compile(c.graph, *c.inputs, c.data);
  if (!execution) return Verdict::skip("domain failure");
  if (subject.profile->singleOutput == SingleOutput::ancestors) return singleOutputOnAncestors(subject, c, **execution);
  const Tensor<T>& seed = c.seeds[c.output];
  auto single = (*execution)->backwardSingle(c.output, seed);
  if (!single) return passFailed(subject.engine, "backwardSingle", single.error());
  auto dense = (*execution)->backwardDense(singleSeedPack(c.graph, c.output, seed));
  if (!dense) return passFailed(subject.engine, "backwardDense", dense.error());
  const std::string_view name = subject.engine.name();
  // Both sides are the engine's: its single-output pass, and its dense pass as the reference.
  Verdict same = comparePacks(Quantity::gradients, fmt::format("single output {}", c.output), fmt::format("{} single", name),
                              single->gradients, fmt::format("{} dense", name), *dense, subject.policy);
  if (!same.holds) return same;
  std::size_t expected = expectedVisits(c.graph, c.output);
  if (single->programsRun && *single->programsRun != expected)
    return Verdict::fail(fmt::format("{}: backwardSingle({}) ran {} node programs, the reference's visit set has {}", name,
                                     c.output, *single->programsRun, expected),
                         {c.output});
  return Verdict::pass();
}

}  // namespace tc::props
