#pragma once
#include <fmt/format.h>

#include <cassert>
#include <cmath>
#include <optional>
#include <variant>

#include "core/carriers/grid_bound.h"
#include "core/graph/map_graph.h"
#include "core/graph/node_program.hpp"
#include "core/graph/pack_checks.hpp"
#include "core/ops/opaque.hpp"
#include "core/spec/exactness.h"
#include "core/spec/reference.hpp"
#include "core/support/text.h"

namespace tc::spec {

namespace detail {

// ", value 2" when a tensor has several values; a scalar's only value needs no name.
inline std::string valueAt(std::size_t size, std::size_t i) {
  return size > 1 ? fmt::format(", value {}", i) : std::string();
}

// "<what> value 2 is nan, not finite" for the first value of `x` that is inf or NaN.
template <class T>
Result<void> checkFinite(const std::vector<T>& values, const std::string& what) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      return fail(fmt::format("{} value {} is {}, not finite", what, i, Carrier<T>::format(values[i])));
  return {};
}

// Every carrier value among a node's attributes (scale's c, clamp's lo and hi, const's values),
// found through the op's attribute schema.
template <class T>
Result<void> checkAttributesFinite(const Graph<T>& graph, std::size_t position) {
  const Node<T>& node = graph.nodeAt(position);
  for (const AttrSpec<T>& spec : ops::attributes<T>(node.op)) {
    std::vector<T> values;
    if (auto* one = std::get_if<std::optional<T> Attrs<T>::*>(&spec.field); one && node.attrs.**one)
      values.push_back(*(node.attrs.**one));
    if (auto* many = std::get_if<std::vector<T> Attrs<T>::*>(&spec.field)) values = node.attrs.**many;
    std::string what = fmt::format("{}: attribute {}", describeNode(graph, position), spec.name);
    if (auto ok = checkFinite(values, what); !ok) return ok;
  }
  return {};
}

// Inputs, data, attributes and seeds: the leaves of every expression. A finite T is exact.
template <class T>
Result<void> checkLeavesFinite(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data, const Pack<T>& seeds) {
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (auto ok = checkFinite(inputs[i].values, fmt::format("input {}", i)); !ok) return ok;
  for (const auto& [key, tensor] : data)
    if (auto ok = checkFinite(tensor.values, fmt::format("data tensor {}", quote(key))); !ok) return ok;
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
    if (auto ok = checkAttributesFinite(graph, p); !ok) return ok;
  for (std::size_t p = 0; p < seeds.size(); ++p)
    if (auto ok = checkFinite(seeds[p].values, fmt::format("seed at position {}", p)); !ok) return ok;
  return {};
}

// The index of the first value of `x` that some order may round.
template <class T>
std::optional<std::size_t> firstInexact(const Tensor<GridBound<T>>& x) {
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!x[i].exact()) return i;
  return std::nullopt;
}

// "<where>[, value i]: <why>" for value i of `x`.
template <class T>
Error inexactAt(const std::string& where, const Tensor<GridBound<T>>& x, std::size_t i) {
  return Error{fmt::format("{}{}: {}", where, valueAt(x.size(), i), describeGridProblem<T>(x[i].problem))};
}

// The first node whose forward value some order may round. Flags propagate through arithmetic and
// every earlier position is exact when a node is reached, so the flag arose in the node itself.
template <class T>
Result<void> checkForward(const Graph<GridBound<T>>& graph, const Context<GridBound<T>>& context) {
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
    if (auto i = firstInexact(context[p])) return std::unexpected(inexactAt(describeNode(graph, p), context[p], *i));
  return {};
}

// Names the first step of the dense pass (docs/semantics.md §1.6) that some order may round, given
// its final gradients, at least one of them flagged. Nodes are visited highest first, as the pass
// does: node k's cotangent is the final G[k], the seed plus the contributions of later nodes, all
// exact by then, so a flag on it arose in that sum; otherwise a flagged contribution arose in the
// node's terms or local sums. After the nodes, only an input's sum is left.
template <class T>
Error locateBackward(const Graph<GridBound<T>>& graph, const Context<GridBound<T>>& context,
                     const Data<GridBound<T>>& data, const Pack<GridBound<T>>& gradients) {
  auto gradientAt = [&](std::size_t p) { return fmt::format("gradient at position {}", p); };
  for (std::size_t k = graph.positionCount(); k-- > graph.inputs.size();) {
    if (auto i = firstInexact(gradients[k])) return inexactAt(gradientAt(k), gradients[k], *i);
    LocalContribution<GridBound<T>> c = localContribution<GridBound<T>>(graph, context, data, k, gradients[k]);
    auto contributionTo = [&](std::size_t p) {
      return fmt::format("{}, contribution to position {}", describeNode(graph, k), p);
    };
    for (const auto& [p, tensor] : c.support)
      if (auto i = firstInexact(tensor)) return inexactAt(contributionTo(p), tensor, *i);
    for (std::size_t p = 0; p < c.dense.size(); ++p)
      if (auto i = firstInexact(c.dense[p])) return inexactAt(contributionTo(p), c.dense[p], *i);
  }
  for (std::size_t p = 0; p < graph.inputs.size(); ++p)
    if (auto i = firstInexact(gradients[p])) return inexactAt(gradientAt(p), gradients[p], *i);
  assert(false && "a flagged gradient has a first flagged step");
  return Error{"a gradient may round"};
}

}  // namespace detail

template <class T>
Result<void> checkOpsInExactDomain(const Graph<T>& graph) {
  using G = GridBound<T>;
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p) {
    const Node<T>& node = graph.nodeAt(p);
    Requirement needs = ops::requirement(node.op, node.attrs);
    if (!satisfies(Carrier<G>::caps, needs))
      return fail(fmt::format("{}: not in the exact domain: needs {}", describeNode(graph, p), requirementName(needs)));
    if (node.attrs.opaque && !OpaqueRegistry<G>::instance().find(node.attrs.opaque->name))
      return fail(describeNode(graph, p) + ": not in the exact domain: the opaque program has no exact-domain definition");
  }
  return {};
}

template <class T>
Result<void> checkExactDomain(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data, const Pack<T>& seeds) {
  using G = GridBound<T>;
  if (auto ok = checkInputs(graph, inputs); !ok) return ok;
  if (auto ok = checkData(graph, data); !ok) return ok;
  if (auto ok = checkSeedPack(graph, seeds); !ok) return ok;
  if (auto ok = checkOpsInExactDomain(graph); !ok) return ok;
  if (auto ok = detail::checkLeavesFinite(graph, inputs, data, seeds); !ok) return ok;
  auto lift = [](const T& v) { return G::lift(v); };
  const Graph<G> lifted = mapGraph<G>(graph, lift);
  const Data<G> liftedData = mapData<G>(data, lift);
  auto context = eval(lifted, mapPack<G>(inputs, lift), liftedData);
  if (!context) return std::unexpected(context.error());
  if (auto ok = detail::checkForward(lifted, *context); !ok) return ok;
  // Every contribution and every sum ends up in some gradient, and flags propagate through
  // arithmetic, so exact gradients mean an exact pass; only a failure needs locating.
  Pack<G> gradients = backpropAllCtx(lifted, *context, liftedData, mapPack<G>(seeds, lift));
  for (const Tensor<G>& g : gradients)
    if (detail::firstInexact(g)) return std::unexpected(detail::locateBackward(lifted, *context, liftedData, gradients));
  return {};
}

}  // namespace tc::spec
