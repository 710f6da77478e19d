#pragma once
// Oracle of accuracy on IEEE carriers (docs/semantics.md §2.6, §3.2): at every node, the
// engine's forward value lies within the op's accuracy budget of the exact result of the op on the
// engine's *own* argument values at that node. The exact result is enclosed on the interval
// carrier (MPFI), so a value is blamed only when every real the enclosure holds is farther from
// it than the budget: no false alarm, whatever the enclosure's width. Each node is judged on its
// own inputs, so an error upstream is not charged again downstream. A node is not judged where
// its exact value does not exist or cannot be had: an argument that is NaN or infinite, a domain
// failure on intervals (log of a value ≤ 0, a divisor 0), a value beyond the interval carrier's
// range, an opaque program (no budget), or attributes or data that are not finite.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/carriers/interval.h"
#include "core/graph/map_graph.h"
#include "core/graph/node_program.h"
#include "core/io/case_file.h"
#include "core/io/listing.h"
#include "core/ops/library.hpp"
#include "properties/compare.hpp"
#include "properties/engine_under_test.h"

namespace tc::props {

//! An IEEE binary format: precision p in bits (53, 24), and the exponents of its smallest and
//! largest normal binades (−1022 and 1023 for double; −126 and 127 for float).
struct IeeeFormat {
  int precision;
  int minExponent;
  int maxExponent;
};

template <class F>
constexpr IeeeFormat ieeeFormatOf() {
  return {std::numeric_limits<F>::digits, std::numeric_limits<F>::min_exponent - 1,
          std::numeric_limits<F>::max_exponent - 1};
}

//! The format's unit roundoff and subnormal rounding bound as intervals (exact points).
ops::RoundingModel<Interval> roundingModelOf(const IeeeFormat& format);

//! One IEEE value judged against the exact value it stands for: `within` unless every real in
//! the enclosure lies farther from it than the budget; `ulps`, its distance from the farthest
//! such real in units in the last place of the exact value (an upper bound; infinite for a NaN
//! or a wrong infinity).
struct ElementJudgement {
  bool within = true;
  double ulps = 0;
  double ofBudget = 0;  //!< the distance over the budget (an upper bound; above 1 when not within)
};

//! Judges `value` (a double or a float, exactly as a double) against the exact result enclosed
//! by `exact`: the budget is `ulpBudget` ulps of the exact value plus the upper end of
//! `accumulated` (or nothing). An infinity stands for 2^(maxExponent + 1), the first value the
//! format rounds to it, and is exact for a result at or beyond it.
ElementJudgement judgeElement(double value, const Interval& exact, const IeeeFormat& format, double ulpBudget,
                              const Interval* accumulated);

//! The double nearest the enclosure's midpoint.
double nearestDouble(const Interval& exact);

namespace detail {

// The engine's value as an exact point interval; empty when it is NaN or infinite.
inline std::optional<Interval> exactPoint(double v) {
  if (!std::isfinite(v)) return std::nullopt;
  return Interval(Mpfi(v));
}

// Whether every carrier value a node's attributes hold is finite (scale's c, clamp's bounds,
// const's values): the interval carrier has no NaN or infinity.
template <class F>
bool finiteAttributes(const Attrs<F>& a) {
  auto finite = [](const std::optional<F>& v) { return !v || std::isfinite(*v); };
  if (!finite(a.c) || !finite(a.lo) || !finite(a.hi)) return false;
  for (F v : a.values)
    if (!std::isfinite(v)) return false;
  return true;
}

template <class F>
bool finiteTensor(const Tensor<F>& x) {
  for (F v : x.values)
    if (!std::isfinite(v)) return false;
  return true;
}

// The interval carrier's copy of a case: the graph and the data, every value an exact point
// (a value that is not finite becomes 0: the nodes that read one are not judged).
template <class F>
struct IntervalCase {
  Graph<Interval> graph;
  Data<Interval> data;
  bool finiteData;
  explicit IntervalCase(const Case<F>& c)
      : graph(mapGraph<Interval>(c.graph, pointOf)), data(mapData<Interval>(c.data, pointOf)), finiteData(true) {
    for (const auto& [key, tensor] : c.data) finiteData = finiteData && finiteTensor(tensor);
  }
  static Interval pointOf(F v) { return exactPoint(v).value_or(Interval(Mpfi(0))); }
};

// The engine's context as exact points, converted on first use.
template <class F>
class PointContext {
 public:
  explicit PointContext(const Context<F>& context) : context_(context), points_(context.size()), ready_(context.size()) {}
  // The point tensors of the node's arguments, or false when one holds a NaN or an infinity.
  bool prepare(const std::vector<std::size_t>& args) {
    for (std::size_t p : args) {
      if (ready_[p]) continue;
      if (!finiteTensor(context_[p])) return false;
      points_[p] = mapTensor<Interval>(context_[p], [](F v) { return *exactPoint(v); });
      ready_[p] = true;
    }
    return true;
  }
  std::span<const Tensor<Interval>> points() const { return points_; }

 private:
  const Context<F>& context_;
  std::vector<Tensor<Interval>> points_;
  std::vector<bool> ready_;
};

// Why a node is not judged, or nothing when it is.
template <class F>
std::optional<std::string> unjudgedReason(const Case<F>& c, const IntervalCase<F>& exact, std::size_t k) {
  const Node<F>& node = c.graph.nodeAt(k);
  if (node.attrs.opaque) return "an opaque program (no accuracy budget)";
  if (!finiteAttributes(node.attrs)) return "an attribute that is not finite";
  if (!node.attrs.key.empty() && !exact.finiteData) return "data that is not finite";
  return std::nullopt;
}

// The failure at element i of node k.
template <class F>
Verdict accuracyFailure(const Case<F>& c, std::string_view engine, std::size_t k, std::size_t i, F value,
                        const Interval& exact, double ulpBudget, const Tensor<Interval>& accumulated,
                        const ElementJudgement& judged) {
  const Node<F>& node = c.graph.nodeAt(k);
  std::string budget = fmt::format("{} ulp", ulpBudget);
  if (!accumulated.values.empty()) budget += " + " + displayInterval(accumulated[i]);
  std::string distance = std::isinf(judged.ulps) ? std::string("unbounded") : fmt::format("{:.4g} ulp", judged.ulps);
  Verdict verdict = Verdict::fail(
      fmt::format("{}, element {}: {} computes {} where the exact result on its own arguments is {}: {} away, "
                  "over the budget of {}",
                  describeNode(c.graph, k), i, engine, displayValue(value), displayInterval(exact), distance, budget),
      {k});
  verdict.notes[k] = {noteLine("exact", 5, displayInterval(exact) + "   <- blamed")};
  // As a forward difference at node k, so that a survey files it under the node's op.
  verdict.leftName = std::string(engine), verdict.rightName = "exact";
  verdict.quantity = Quantity::forwardValues;
  verdict.differences = {{k, displayValue(value), displayInterval(exact)}};
  verdict.differenceClass = differenceClass(value, static_cast<F>(nearestDouble(exact)));
  return verdict;
}

}  // namespace detail

template <class F>
Verdict accuracy(const EngineUnderTest<F>& subject, const Case<F>& c) {
  for (const Node<F>& node : c.graph.nodes)
    if (node.attrs.opaque && !OpaqueRegistry<Interval>::instance().find(node.attrs.opaque->name))
      return Verdict::skip("an opaque program without an interval definition");
  auto execution = subject.engine.compile(c.graph, *c.inputs, c.data);
  if (!execution) return Verdict::skip("the forward failed (the theorem properties judge its error)");
  const Context<F>& context = (*execution)->context();
  const detail::IntervalCase<F> exact(c);
  const IeeeFormat format = ieeeFormatOf<F>();
  const ops::RoundingModel<Interval> model = roundingModelOf(format);
  detail::PointContext<F> points(context);
  Verdict verdict = Verdict::pass();
  std::size_t judged = 0;
  std::string lastReason = "no node";
  for (std::size_t k = c.graph.inputs.size(); k < c.graph.positionCount() && k < context.size(); ++k) {
    const Node<F>& node = c.graph.nodeAt(k);
    if (auto reason = detail::unjudgedReason(c, exact, k)) {
      lastReason = *reason;
      continue;
    }
    if (!points.prepare(node.args)) {
      lastReason = "arguments that are NaN or infinite";
      continue;
    }
    auto y = validateAndForward(exact.graph, points.points(), exact.data, k);
    if (!y || y->shape != context[k].shape) {  // a shape the engine got wrong is the theorem properties' to judge
      lastReason = y ? "a value of another shape" : "no exact value on intervals";
      continue;
    }
    const double ulpBudget = ops::accuracyUlps(node.op);
    const Tensor<Interval> accumulated = accumulatedErrorAt(exact.graph, points.points(), exact.data, k, *y, model);
    const std::string label = ops::nodeLabel(node.op, node.attrs);
    Measure& worst = verdict.measures[label];
    for (std::size_t i = 0; i < y->size(); ++i) {
      const F value = context[k][i];
      const ElementJudgement judgement =
          judgeElement(static_cast<double>(value), (*y)[i], format, ulpBudget,
                       accumulated.values.empty() ? nullptr : &accumulated[i]);
      worst.widen({judgement.ulps, judgement.ofBudget});
      if (!judgement.within)
        return detail::accuracyFailure(c, subject.engine.name(), k, i, value, (*y)[i], ulpBudget, accumulated, judgement);
    }
    ++judged;
  }
  if (judged == 0) return Verdict::skip(fmt::format("no node to judge (last: {})", lastReason));
  return verdict;
}

}  // namespace tc::props
