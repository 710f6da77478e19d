#pragma once
// Oracle of the forward values (docs/semantics.md §3.2): every node's value in the engine's context
// equals the naive definition of its op (properties/oracles/naive_forward.h, written apart from
// core/ops) on the engine's own values of its arguments. Every other property runs core/ops' forward
// on both sides, so a forward that all layers share and get wrong, with a backward that is the exact
// adjoint of the wrong forward, passes them all; it fails here.
//
// - rational, rational-noeq, modp: exact equality (`==`; these carriers have no sign of zero).
// - interval: the engine's enclosure and the naive one overlap. Both enclose the real value of the
//   op at the same argument intervals, so a correct engine never fails, whatever its evaluation
//   order (the carrier's folds of products of doubles are exact sums enclosed once, §1.13); a wrong
//   forward gives another real number, whose enclosure is disjoint at 257 bits unless the two differ
//   by less than about 2^-250 relative. The ten transcendental ops are compared here.
// - double, float: cases of the exact domain only (spec::checkExactDomain, §1.12; a subject judged on
//   exact cases only has had each case proven exact by the runner). The naive definition runs on the
//   exact rationals of the engine's argument values and the engine's value must be that rational
//   exactly; where it is 0 and the op's sign of zero is fixed whatever the evaluation order (every op
//   but the folds sum, sum_axis, mean, dot, matmul, linear and mse_loss, whose −0 depends on dropping
//   the +0 a fold starts from, §1.12), the engine's zero must also have the sign of the naive
//   definition evaluated in the carrier itself (relu(−0) = +0, max(−0, +0) = −0, abs clears the sign,
//   −x of +0), under the engine's policy (`values` and an unspecified zero sign ignore it). The exact
//   domain holds no transcendental op: on IEEE carriers the accuracy oracle judges those (§2.6).
// - opaque nodes are user programs with no naive definition: they are not compared, and the nodes
//   after them are, on the engine's values (an opaque node's included). A case whose nodes are all
//   opaque is skipped, and a check of such a graph leaves the property out (needsOneOf).
// - a case the engine refuses is skipped: domain_errors judges where it must refuse. A node the
//   engine computes where the naive definition has no value (a divisor holding 0 on an exact
//   carrier) fails.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/carriers/rational.h"
#include "core/graph/map_graph.h"
#include "core/io/case_file.h"
#include "properties/compare.hpp"
#include "properties/engines/engine_under_test.h"
#include "properties/oracles/naive_forward.hpp"

namespace tc::props {
namespace forward_detail {

//! Whether an exact zero the op gives on IEEE carriers has one sign in every evaluation order the
//! exact domain admits: every op's but the folds' (an engine that starts a fold from its first
//! element instead of +0 gives −0 for a sum of −0s, §1.12).
inline bool zeroSignFixed(OpKind op) {
  switch (op) {
    case OpKind::sum:
    case OpKind::sum_axis:
    case OpKind::mean:
    case OpKind::dot:
    case OpKind::matmul:
    case OpKind::linear:
    case OpKind::mse_loss: return false;
    default: return true;
  }
}

//! "[2, 2] 1 3 2 4": a tensor for a difference listing.
template <class T>
std::string listed(const Tensor<T>& t) {
  std::string text = formatShape(t.shape);
  for (const T& v : t.values) text += " " + displayValue(v);
  return text;
}

//! The exact rational of an IEEE value, or nothing for a NaN or an infinity.
template <class F>
std::optional<Rational> exactly(F v) {
  if (!std::isfinite(v)) return std::nullopt;
  return Rational(v);
}

//! What one node's comparison found: empty `first` when it agrees.
struct NodeFinding {
  std::string first;         //!< "value 1: 2 vs 3", "shape [2] vs [3]", or why there is no naive value
  std::string naive;         //!< the naive side, listed
  std::size_t worst = 0;     //!< class of the worst difference (kDifferenceClasses)
  std::string exactNote;     //!< IEEE: the exact naive values where the carrier's own differ
};

inline constexpr std::size_t kOtherDifference = std::size(kDifferenceClasses) - 1;

//! Compares the engine's value `got` of a node with the naive one on an exact or enclosure carrier.
template <class T>
NodeFinding compareExact(const Tensor<T>& got, const Tensor<T>& naive) {
  NodeFinding f{{}, listed(naive), 0, {}};
  if (got.shape != naive.shape) {
    f.first = fmt::format("shape {} vs {}", formatShape(got.shape), formatShape(naive.shape));
    f.worst = kOtherDifference;
    return f;
  }
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!agree(got[i], naive[i])) {
      f.first = fmt::format("value {}: {} vs {}", i, displayValue(got[i]), displayValue(naive[i]));
      f.worst = kOtherDifference;
      return f;
    }
  return f;
}

//! Compares an IEEE engine's value with the naive exact one (`exact`) and the naive one in the
//! carrier (`inCarrier`, for the sign of zero where `signFixed`), under `policy`.
template <class F>
NodeFinding compareIeee(const Tensor<F>& got, const Tensor<Rational>& exact, const Tensor<F>& inCarrier, bool signFixed,
                        Policy policy) {
  NodeFinding f{{}, listed(inCarrier), 0, {}};
  for (std::size_t i = 0; i < exact.size() && i < inCarrier.size(); ++i)
    if (exactly(inCarrier[i]) != std::optional<Rational>(exact[i])) {
      f.exactNote = "[" + abbreviatedValues(exact) + "]";
      break;
    }
  if (got.shape != exact.shape) {
    f.first = fmt::format("shape {} vs {}", formatShape(got.shape), formatShape(exact.shape));
    f.worst = kOtherDifference;
    return f;
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    const std::optional<Rational> value = exactly(got[i]);
    const bool sameNumber = value && *value == exact[i];
    const bool sameSign = !sameNumber || !signFixed || exact[i] != 0 || sameUnder(policy, got[i], inCarrier[i]);
    if (sameNumber && sameSign) continue;
    const std::size_t kind = differenceClass(got[i], inCarrier[i]);
    if (f.first.empty())
      f.first = fmt::format("value {}: {} vs {}{}", i, displayValue(got[i]), displayValue(inCarrier[i]),
                            sameNumber ? " (the sign of zero)" : "");
    f.worst = std::max(f.worst, sameNumber ? std::size_t{0} : std::max<std::size_t>(kind, 1));
  }
  return f;
}

}  // namespace forward_detail

template <class T>
Verdict forward_oracle(const EngineUnderTest<T>& subject, const Case<T>& c) {
  using namespace forward_detail;
  constexpr bool ieee = std::is_floating_point_v<T>;
  const Graph<T>& graph = c.graph;
  if (std::ranges::none_of(graph.nodes, [](const Node<T>& n) { return n.op != OpKind::opaque; }))
    return Verdict::skip(graph.nodes.empty() ? "no node" : "only opaque programs, which have no naive definition");
  if constexpr (ieee)
    if (!subject.exactCasesOnly)
      if (std::string reason = notExactReason(c); !reason.empty()) return Verdict::skip(reason);
  auto execution = subject.engine.compile(graph, *c.inputs, c.data);
  if (!execution) return Verdict::skip("the engine refused the case (domain_errors judges refusals)");
  const Context<T>& context = (*execution)->context();
  const std::string engine(subject.engine.name());
  if (context.size() != graph.positionCount())
    return Verdict::fail(fmt::format("forward values: {} gives {} positions, the graph has {}", engine, context.size(),
                                     graph.positionCount()));

  Verdict verdict = Verdict::fail("");
  verdict.leftName = engine, verdict.rightName = "naive forward";
  verdict.quantity = Quantity::forwardValues;
  std::size_t worst = 0;
  auto differ = [&](std::size_t p, std::string_view what, const NodeFinding& finding) {
    if (verdict.differences.empty())
      verdict.why = fmt::format("forward values: {} vs naive forward: position {} ({}): {}", engine, p, what,
                                finding.first);
    verdict.differences.push_back({p, listed(context[p]), finding.naive});
    verdict.blamed.insert(p);
    if (!finding.exactNote.empty()) verdict.notes[p].push_back(noteLine("exact", 5, finding.exactNote));
    worst = std::max(worst, finding.worst);
  };

  // The inputs are copies of the case's values.
  for (std::size_t p = 0; p < graph.inputs.size(); ++p) {
    NodeFinding f{{}, listed((*c.inputs)[p]), kOtherDifference, {}};
    if (context[p].shape != (*c.inputs)[p].shape) {
      f.first = fmt::format("shape {} vs {}", formatShape(context[p].shape), formatShape((*c.inputs)[p].shape));
    } else {
      for (std::size_t i = 0; i < context[p].size() && f.first.empty(); ++i)
        if (!Carrier<T>::same(context[p][i], (*c.inputs)[p][i]))
          f.first = fmt::format("value {}: {} vs {}", i, displayValue(context[p][i]), displayValue((*c.inputs)[p][i]));
    }
    if (!f.first.empty()) differ(p, "input", f);
  }

  [[maybe_unused]] Data<Rational> exactData;
  [[maybe_unused]] bool finiteData = true;  // the exact domain's data are finite
  if constexpr (ieee)
    for (const auto& [key, tensor] : c.data) {
      std::vector<Rational> values;
      for (const T& v : tensor.values) {
        finiteData = finiteData && std::isfinite(v);
        values.push_back(exactly(v).value_or(Rational(0)));
      }
      exactData.emplace(key, Tensor<Rational>(tensor.shape, std::move(values)));
    }

  std::size_t compared = 0, opaque = 0;
  for (std::size_t k = 0; k < graph.nodes.size(); ++k) {
    const std::size_t p = graph.inputs.size() + k;
    const Node<T>& node = graph.nodes[k];
    if (node.op == OpKind::opaque) {
      ++opaque;
      continue;
    }
    const std::string what(opName(node.op));
    std::vector<const Tensor<T>*> args;
    for (std::size_t a : node.args) args.push_back(&context[a]);
    auto naiveValue = naive::forward<T>(node, args, graph.schema, c.data, graph.conventions);
    if (!naiveValue) {
      differ(p, what, {fmt::format("{} gives a value where the naive definition has none: {}", engine,
                                   naiveValue.error().message),
                       "(no value)", kOtherDifference, {}});
      continue;
    }
    if constexpr (ieee) {
      // The exact rationals of the engine's arguments; a NaN or an infinity among them (which only
      // a node that already differs or an opaque program gives in the exact domain) leaves the node
      // uncompared.
      std::vector<Tensor<Rational>> exactArgs;
      bool finite = true;
      for (const Tensor<T>* a : args) {
        std::vector<Rational> values;
        for (const T& v : a->values) {
          auto q = exactly(v);
          finite = finite && q.has_value();
          values.push_back(q.value_or(Rational(0)));
        }
        exactArgs.push_back(Tensor<Rational>(a->shape, std::move(values)));
      }
      const bool finiteAttrs = (!node.attrs.c || std::isfinite(*node.attrs.c)) &&
                               (!node.attrs.lo || std::isfinite(*node.attrs.lo)) &&
                               (!node.attrs.hi || std::isfinite(*node.attrs.hi)) &&
                               std::ranges::all_of(node.attrs.values, [](T v) { return std::isfinite(v); });
      if (!finite || !finiteAttrs || (node.op == OpKind::mask && !finiteData)) continue;
      const Node<Rational> exactNode{node.op, node.args,
                                     mapAttrs<Rational>(node.attrs, [](const T& v) { return Rational(v); }),
                                     node.shape};
      std::vector<const Tensor<Rational>*> exactPointers;
      for (const Tensor<Rational>& a : exactArgs) exactPointers.push_back(&a);
      auto exact = naive::forward<Rational>(exactNode, exactPointers, graph.schema, exactData, graph.conventions);
      if (!exact) {
        differ(p, what, {fmt::format("{} gives a value where the naive definition has none: {}", engine,
                                     exact.error().message),
                         "(no value)", kOtherDifference, {}});
        continue;
      }
      ++compared;
      NodeFinding f = compareIeee(context[p], *exact, *naiveValue, zeroSignFixed(node.op), subject.policy);
      if (!f.first.empty()) differ(p, what, f);
    } else {
      ++compared;
      NodeFinding f = compareExact(context[p], *naiveValue);
      if (!f.first.empty()) differ(p, what, f);
    }
  }
  if (!verdict.differences.empty()) {
    if (verdict.differences.size() > 1)
      verdict.why += fmt::format(" (positions differing: {})", verdict.differences.size());
    verdict.differenceClass = worst;
    return verdict;
  }
  if (compared == 0)
    return Verdict::skip(opaque > 0 ? "only opaque programs, which have no naive definition"
                                    : "no node with finite arguments");
  return Verdict::pass();
}

}  // namespace tc::props
