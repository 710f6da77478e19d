#pragma once
// Oracle of accuracy on IEEE carriers (docs/semantics.md §2.6, §3.2): at every node, the
// engine's forward value lies within the op's accuracy budget of the exact result of the op on the
// engine's *own* argument values at that node. The exact result is enclosed on the interval
// carrier (MPFI), so a value is blamed only when every real the enclosure holds is farther from
// it than the budget: no false alarm, whatever the enclosure's width. Each node is judged on its
// own inputs, so an error upstream is not charged again downstream. A node is not judged where
// its exact value does not exist or cannot be had: an argument that is NaN or infinite (a
// pointwise op is judged on its other elements), a domain failure on intervals (log of a value
// ≤ 0, a divisor 0), a value beyond the interval carrier's range, an opaque program (no budget),
// or attributes or data that are not finite.
//
// Backward: a position's gradient is its seed plus the terms of the nodes that read it, so the
// engine's gradient there is judged against that sum, exact, with each term taken on the engine's
// own arguments and cotangent at its node, within the sum of the ops' term budgets (γ_k of each
// term's magnitude, OpBase::termRoundings) and γ_(m−1) of the addends for adding m of them. A term
// may read any forward value within the forward's budget (so a tanh that rounds to 1 may give the
// term 0). A gradient is judged only where every term that reaches it is: no opaque program after
// it, every reader's forward judged, and everything a term reads 0 or within 2^±(emax/4), with its
// exact value 0 or above 2^-(emax/4) — there no intermediate underflows or overflows, which the
// budgets do not cover. A gradient that is one term alone is reported under ∂op in the measures.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/carriers/interval.h"
#include "core/graph/map_graph.h"
#include "core/graph/node_program.h"
#include "core/io/case_file.h"
#include "core/io/listing.h"
#include "core/ops/library.hpp"
#include "core/spec/reference.h"
#include "core/support/mutants.h"
#include "properties/compare.hpp"
#include "properties/engines/engine_under_test.h"
#include "properties/oracles/node_case.h"

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
//! the enclosure lies farther from it than the budget; `ulps`, its distance from the nearest
//! such real in units in the last place of the exact value (infinite for a NaN or a wrong
//! infinity).
struct ElementJudgement {
  bool within = true;
  double ulps = 0;
  double ofBudget = 0;  //!< that distance over the budget (above 1 when not within)
};

//! Judges `value` (a double or a float, exactly as a double) against the exact result enclosed
//! by `exact`: the budget is `ulpBudget` ulps of the exact value plus the upper end of
//! `accumulated` (or nothing). An infinity stands for 2^(maxExponent + 1), the first value the
//! format rounds to it, and is exact for a result at or beyond it.
ElementJudgement judgeElement(double value, const Interval& exact, const IeeeFormat& format, double ulpBudget,
                              const Interval* accumulated);

//! The double nearest the enclosure's midpoint.
double nearestDouble(const Interval& exact);

//! The reals within the budget of `exact` (`ulps` ulps plus `accumulated`): every value an IEEE
//! forward judged within it may hold.
Interval widenedByBudget(const Interval& exact, const IeeeFormat& format, double ulps, const Interval* accumulated);

//! Whether `v` is 0 or of magnitude within 2^±⌊emax/4⌋ (2^±255 in double, 2^±31 in float): a
//! product of three such values, or a quotient, neither underflows nor overflows.
bool withinTermRange(double v, const IeeeFormat& format);

//! Whether an exact term, not 0, lies below 2^-⌊emax/4⌋ in magnitude: an IEEE evaluation may have
//! gone through a subnormal on the way (a sigmoid of −1000 inside a term), beyond what γ_k bounds.
bool mayHaveUnderflowed(const Interval& term, const IeeeFormat& format);

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

// A tensor of finite values as exact point intervals.
template <class F>
Tensor<Interval> pointsOf(const Tensor<F>& x) {
  return mapTensor<Interval>(x, [](F v) { return *exactPoint(v); });
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
      points_[p] = pointsOf(context_[p]);
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

// What a failure names: where the value is, what it is and what the exact one is.
struct AccuracyMiss {
  std::string where;         // "node 5 (exp), element 2"
  std::size_t position;      // where the engine's value is (node k, or the argument a term reaches)
  Quantity quantity;         // a forward value, or a gradient
  std::string budget;        // "2 ulp + [...]"
  std::set<std::size_t> blamed;
};

template <class F>
Verdict accuracyFailure(std::string_view engine, const AccuracyMiss& miss, F value, const Interval& exact,
                        const ElementJudgement& judged) {
  std::string distance = std::isinf(judged.ulps) ? std::string("unbounded") : fmt::format("{:.4g} ulp", judged.ulps);
  const bool forward = miss.quantity == Quantity::forwardValues;
  Verdict verdict = Verdict::fail(
      fmt::format("{}: {} computes {} where the exact {} is {}: {} away, over the budget of {}", miss.where, engine,
                  displayValue(value),
                  forward ? "result on its own arguments" : "value on the engine's own arguments and cotangents",
                  displayInterval(exact), distance, miss.budget),
      miss.blamed);
  verdict.notes[miss.position] = {noteLine("exact", 5, displayInterval(exact) + "   <- blamed")};
  // As a difference at the position, so that a survey files it under the op that made the value.
  verdict.leftName = std::string(engine), verdict.rightName = "exact";
  verdict.quantity = miss.quantity;
  verdict.differences = {{miss.position, displayValue(value), displayInterval(exact)}};
  verdict.differenceClass = differenceClass(value, static_cast<F>(nearestDouble(exact)));
  return verdict;
}

// The budget as a failure states it: ulps, plus the accumulated bound when there is one.
inline std::string budgetText(double ulps, const Interval* accumulated) {
  if (ulps == 0 && accumulated) return displayInterval(*accumulated);
  std::string budget = fmt::format("{} ulp", ulps);
  if (accumulated) budget += " + " + displayInterval(*accumulated);
  return budget;
}

// Every node's forward value judged on its own arguments, then every position's gradient judged
// as its seed plus the terms of its readers, each on the reader's arguments and cotangent. Keeps
// each judged node's forward values within budget: a term may read any of them.
template <class F>
class AccuracyJudge {
 public:
  AccuracyJudge(std::string_view engine, const Case<F>& c, const Context<F>& context,
                const EngineProfile& profile = specProfile())
      : engine_(engine),
        profile_(profile),
        c_(c),
        context_(context),
        exact_(c),
        format_(ieeeFormatOf<F>()),
        model_(roundingModelOf(format_)),
        points_(context),
        withinBudget_(c.graph.positionCount()) {}

  std::optional<Verdict> forward() {
    for (std::size_t k = c_.graph.inputs.size(); k < c_.graph.positionCount() && k < context_.size(); ++k) {
      const Node<F>& node = c_.graph.nodeAt(k);
      if (auto reason = unjudgedReason(c_, exact_, k)) {
        lastReason_ = *reason;
        continue;
      }
      if (!points_.prepare(node.args)) {
        if (auto failure = forwardOnFiniteElements(k)) return failure;
        continue;
      }
      auto y = validateAndForward(exact_.graph, points_.points(), exact_.data, k);
      if (!y || y->shape != context_[k].shape) {  // a shape the engine got wrong is the theorem properties' to judge
        lastReason_ = y ? "a value of another shape" : "no exact value on intervals";
        continue;
      }
      const Tensor<Interval> accumulated =
          accumulatedErrorAt(exact_.graph, points_.points(), exact_.data, k, *y, model_);
      std::optional<Tensor<Interval>> within = *y;
      if (auto failure = judgeValues(k, *y, accumulated, {}, &within)) return failure;
      withinBudget_[k] = std::move(within);
    }
    return std::nullopt;
  }

  //! Judges the engine's dense gradients from `seeds` (the case's, or probeSeeds).
  std::optional<Verdict> backward(const Pack<F>& gradients, const Pack<F>& seeds) {
    seeds_ = &seeds;
    std::vector<GradientSum> sums = gradientSums(gradients);
    judgedPositions_.assign(sums.size(), false);
    for (std::size_t p = 0; p < sums.size() && p < gradients.size(); ++p) {
      const GradientSum& sum = sums[p];
      if (sum.blocked || sum.users.empty() || gradients[p].shape != sum.shape) continue;
      judgedPositions_[p] = true;
      const std::string label = sum.terms == 1 && !sum.seeded ? "∂" + labelAt(sum.users.front()) : "";
      for (std::size_t i = 0; i < sum.exact.size(); ++i) {
        if (sum.mayUnderflow[i]) continue;
        const F value = gradients[p][i];
        const ElementJudgement judgement =
            judgeElement(static_cast<double>(value), sum.exact[i], format_, 0, &sum.bound[i]);
        if (!label.empty()) verdict_.measures[label].widen({judgement.ulps, judgement.ofBudget});
        if (!judgement.within) return termFailure(p, i, sum, value, judgement);
      }
      ++judged_;
    }
    return std::nullopt;
  }

  //! Whether node k's terms were all judged by the last backward: every position it reads was.
  bool termsJudged(std::size_t k) const {
    const Node<F>& node = c_.graph.nodeAt(k);
    return std::all_of(node.args.begin(), node.args.end(),
                       [&](std::size_t p) { return p < judgedPositions_.size() && judgedPositions_[p]; });
  }

  Verdict verdict() const {
    if (judged_ == 0) return Verdict::skip(fmt::format("no node to judge (last: {})", lastReason_));
    return verdict_;
  }

 private:
  // A position's gradient as the exact sum of the terms that reach it (and its seed), with the
  // budget of an IEEE evaluation: each term's, and γ_m of the addends' magnitudes for adding them
  // in any order. Blocked where a term that reaches it cannot be judged.
  struct GradientSum {
    Shape shape;
    Tensor<Interval> exact, bound;  // no values until a seed or a term: +0 so far
    // The addends' magnitudes (each term's |value| plus its bound, the seed's |value|), made when
    // a second addend arrives: only a sum of two or more needs them (startMagnitude).
    Tensor<Interval> magnitude;
    std::vector<bool> mayUnderflow;
    std::vector<std::size_t> users;
    std::size_t terms = 0;
    std::size_t addends = 0;  // the terms' addends: more than the terms where one may arrive in parts
    bool seeded = false;
    bool blocked = false;
  };

  std::vector<GradientSum> gradientSums(const Pack<F>& gradients) const {
    std::vector<GradientSum> sums(c_.graph.positionCount());
    for (std::size_t p = 0; p < sums.size(); ++p) addSeed(sums[p], p);
    for (std::size_t k = c_.graph.inputs.size(); k < c_.graph.positionCount(); ++k) {
      const Node<F>& node = c_.graph.nodeAt(k);
      if (ops::isDense(node.op)) {  // its program reaches every earlier position
        for (std::size_t p = 0; p < k; ++p) sums[p].blocked = true;
        continue;
      }
      if (!ops::hasTerms(node.op)) continue;
      if (!withinBudget_[k] || k >= gradients.size() || !termsReadSafeValues(k, gradients[k])) {
        for (std::size_t p : node.args) sums[p].blocked = true;
        continue;
      }
      const Tensor<Interval> ct = pointsOf(gradients[k]);
      TermsAndError<Interval> terms =
          termsAndErrorAt(exact_.graph, points_.points(), exact_.data, k, *withinBudget_[k], ct, model_);
      allowDeclaredTerms(k, ct, terms);
      if (TC_MUTANT(accuracy_term_budget_doubled))  // the planted fault: every term's budget twice as wide
        for (auto& error : terms.error)
          for (Interval& e : error.value.values) e = e + e;
      for (std::size_t t = 0; t < terms.terms.size(); ++t)
        addTerm(sums[node.args[terms.terms[t].arg]], k, std::move(terms.terms[t].value), std::move(terms.error[t].value),
                ops::termAddends(node.op));
    }
    for (GradientSum& sum : sums) {
      const std::size_t additions = sum.addends + (sum.seeded ? 1 : 0);
      if (additions < 2) continue;
      const Interval gamma = model_.gamma(Carrier<Interval>::fromInt(static_cast<std::int64_t>(additions - 1)));
      for (std::size_t i = 0; i < sum.bound.size(); ++i) sum.bound[i] = sum.bound[i] + gamma * sum.magnitude[i];
    }
    return sums;
  }

  // Judges node k's values against the exact `y`, within the op's ulps plus `accumulated`: y's
  // element j stands for the engine's element `elements[j]` (j itself when `elements` is empty).
  // An element whose budget promises nothing (a partial result may overflow) is not judged. When
  // `within` is given, sets each of its elements to the reals within budget of y's, or empties it
  // when an element was not judged (the terms that would read it are not judged either).
  std::optional<Verdict> judgeValues(std::size_t k, const Tensor<Interval>& y, const Tensor<Interval>& accumulated,
                                     const std::vector<std::size_t>& elements,
                                     std::optional<Tensor<Interval>>* within) {
    const double ulps = ops::accuracyUlps(c_.graph.nodeAt(k).op);
    Measure* worst = nullptr;  // made at the first element judged
    std::size_t judged = 0;
    for (std::size_t j = 0; j < y.size(); ++j) {
      const std::size_t i = elements.empty() ? j : elements[j];
      const Interval* extra = accumulated.values.empty() ? nullptr : &accumulated[j];
      if (extra && model_.promisesNothing(*extra)) {
        lastReason_ = "partial results that may overflow";
        if (within) within->reset();
        continue;
      }
      ++judged;
      const F value = context_[k][i];
      if (takesDeclaredDeviation(k, i, value)) {
        ++verdict_.underDeviation;
        if (within && *within) (**within)[j] = *exactPoint(value);  // its terms read the declared value
        continue;
      }
      const ElementJudgement judgement = judgeElement(static_cast<double>(value), y[j], format_, ulps, extra);
      if (!worst) worst = &verdict_.measures[labelAt(k)];
      worst->widen({judgement.ulps, judgement.ofBudget});
      if (!judgement.within)
        return accuracyFailure(engine_, {fmt::format("{}, element {}", describeNode(c_.graph, k), i), k,
                                         Quantity::forwardValues, budgetText(ulps, extra), {k}},
                               value, y[j], judgement);
      if (within && *within) (**within)[j] = widenedByBudget(y[j], format_, ulps, extra);
    }
    if (judged > 0) ++judged_;
    return std::nullopt;
  }

  // Whether node k's element i is `value` as a deviation the profile declares for its op: the
  // argument's element i in the region and `value` the declared one (a NaN for a NaN). Any other
  // value in the region is judged by the budget.
  bool takesDeclaredDeviation(std::size_t k, std::size_t i, F value) const {
    if (profile_.deviations.empty()) return false;
    const Node<F>& node = c_.graph.nodeAt(k);
    if (node.args.size() != 1) return false;
    const double x = static_cast<double>(context_[node.args[0]][i]);
    const Deviation* d = profile_.deviationAt(Carrier<F>::name, node.op, x);
    if (!d) return false;
    const F gives = static_cast<F>(d->valueAt(x));
    return value == gives || (std::isnan(value) && std::isnan(gives));
  }

  // Node k's terms where the profile declares a deviation for its op at the argument's element i:
  // the term there may be the declared value's derivative times ct (ct where the op gives x, 0
  // where it gives a constant) as well as the exact term, so the exact term becomes the hull of
  // the two, judged within the same budget: the engine may differentiate what it computes.
  void allowDeclaredTerms(std::size_t k, const Tensor<Interval>& ct, TermsAndError<Interval>& terms) const {
    if (profile_.deviations.empty()) return;
    const Node<F>& node = c_.graph.nodeAt(k);
    if (node.args.size() != 1 || terms.terms.size() != 1) return;
    Tensor<Interval>& term = terms.terms.front().value;
    for (std::size_t i = 0; i < term.size(); ++i) {
      const Deviation* d = profile_.deviationAt(Carrier<F>::name, node.op, static_cast<double>(context_[node.args[0]][i]));
      if (!d) continue;
      const Interval declared = ct[i] * *exactPoint(d->slope());
      term[i] = Interval(hull(term[i].v, declared.v));
    }
  }

  // A pointwise node whose arguments hold a NaN or an infinity somewhere: its elements whose
  // arguments are all finite, judged on the op applied to those elements alone (element i of a
  // pointwise op reads the arguments' elements i only). Its terms are not judged: a gradient is
  // judged position by position, and these positions hold values that are not finite.
  std::optional<Verdict> forwardOnFiniteElements(std::size_t k) {
    lastReason_ = "arguments that are NaN or infinite";
    const Node<F>& node = c_.graph.nodeAt(k);
    const std::size_t size = elementCount(c_.graph.shapeAt(k));
    if (!ops::isPointwise(node.op) || context_[k].shape != c_.graph.shapeAt(k)) return std::nullopt;
    for (std::size_t p : node.args)
      if (context_[p].size() != size) return std::nullopt;  // a shape the engine got wrong
    std::vector<std::size_t> elements;
    for (std::size_t i = 0; i < size; ++i)
      if (std::all_of(node.args.begin(), node.args.end(), [&](std::size_t p) { return std::isfinite(context_[p][i]); }))
        elements.push_back(i);
    if (elements.empty()) return std::nullopt;
    const Shape shape{elements.size()};
    Pack<Interval> args;
    for (std::size_t p : node.args)
      args.push_back(Tensor<Interval>(shape, kernels::generate<Interval>(elements.size(), [&](std::size_t j) {
                                        return *exactPoint(context_[p][elements[j]]);
                                      })));
    ArgValues<Interval> pointers;
    for (const Tensor<Interval>& arg : args) pointers.push_back(&arg);
    const Node<Interval>& exactNode = exact_.graph.nodeAt(k);
    const OpCall<Interval> call{exactNode.attrs,      shape,       {pointers.data(), pointers.size()},
                                exact_.graph.schema, exact_.data, exact_.graph.conventions};
    Tensor<Interval> y;
    if (checkedForward(node.op, call, y)) {
      lastReason_ = "no exact value on intervals";
      return std::nullopt;
    }
    return judgeValues(k, y, ops::accumulatedError(node.op, call, y, model_), elements, nullptr);
  }

  void addSeed(GradientSum& sum, std::size_t p) const {
    const Shape& shape = c_.graph.shapeAt(p);
    sum.shape = shape;
    sum.mayUnderflow.assign(elementCount(shape), false);
    if (p >= seeds_->size() || unseeded(p)) return;
    if (!safe((*seeds_)[p]) || (*seeds_)[p].shape != shape) {  // beyond the range, a sum with it could overflow
      sum.blocked = true;
      return;
    }
    sum.seeded = true;
    sum.exact = pointsOf((*seeds_)[p]);
  }

  // The magnitude of a sum's one addend so far, the seed's or a term's, as a second arrives.
  static void startMagnitude(GradientSum& sum) {
    sum.magnitude = ops::absolute(sum.exact);
    if (!sum.seeded)  // the one addend is a term: the sum, its bound the sum's
      for (std::size_t i = 0; i < sum.magnitude.size(); ++i) sum.magnitude[i] = sum.magnitude[i] + sum.bound[i];
  }

  // Adds a term and its error bound to the sum, as `addends` addends of an engine's sum (their
  // magnitudes add up to the term's). Where the sum still holds +0, 0 + x is x itself (storage
  // equality), so the first term's tensors are taken as they are.
  void addTerm(GradientSum& sum, std::size_t k, Tensor<Interval> term, Tensor<Interval> error, std::size_t addends) const {
    if (sum.blocked || term.shape != sum.shape) {
      sum.blocked = true;
      return;
    }
    const bool exactStarts = sum.terms == 0 && !sum.seeded, boundStarts = sum.terms == 0;
    if (!exactStarts && sum.magnitude.values.empty()) startMagnitude(sum);
    for (std::size_t i = 0; i < term.size(); ++i) {
      if (mayHaveUnderflowed(term[i], format_)) sum.mayUnderflow[i] = true;
      if (!exactStarts) {
        sum.magnitude[i] = sum.magnitude[i] + Carrier<Interval>::abs(term[i]) + error[i];
        sum.exact[i] = sum.exact[i] + term[i];
      }
      if (!boundStarts) sum.bound[i] = sum.bound[i] + error[i];
    }
    if (exactStarts) sum.exact = std::move(term);
    if (boundStarts) sum.bound = std::move(error);
    if (std::find(sum.users.begin(), sum.users.end(), k) == sum.users.end()) sum.users.push_back(k);
    ++sum.terms;
    sum.addends += addends;
    // A first term in parts is already a sum of two or more: its magnitude, as a second addend makes it.
    if (addends > 1 && sum.magnitude.values.empty()) startMagnitude(sum);
  }

  std::string labelAt(std::size_t k) const { return ops::nodeLabel(c_.graph.nodeAt(k).op, c_.graph.nodeAt(k).attrs); }

  Verdict termFailure(std::size_t p, std::size_t i, const GradientSum& sum, F value,
                      const ElementJudgement& judgement) const {
    std::vector<std::string> users;
    for (std::size_t k : sum.users) users.push_back(describeNode(c_.graph, k));
    std::string what = sum.terms == 1 && !sum.seeded
                           ? fmt::format("{}'s term for position {}, element {}", users.front(), p, i)
                           : fmt::format("position {}'s gradient, element {}, the sum of {} terms of {}{}", p, i,
                                         sum.terms, fmt::join(users, ", "), sum.seeded ? " and its seed" : "");
    std::set<std::size_t> blamed(sum.users.begin(), sum.users.end());
    blamed.insert(p);
    return accuracyFailure(engine_, {std::move(what), p, Quantity::gradients, budgetText(0, &sum.bound[i]), blamed},
                           value, sum.exact[i], judgement);
  }

  // Whether every value the node's terms read — its arguments, its forward value and its
  // cotangent — is 0 or within 2^±(emax/4), so that no intermediate of a term (a product of up to
  // three such values, a quotient, a sum) underflows or overflows: the budgets assume neither.
  bool termsReadSafeValues(std::size_t k, const Tensor<F>& ct) const {
    const std::vector<std::size_t>& args = c_.graph.nodeAt(k).args;
    return safe(ct) && safe(context_[k]) &&
           std::all_of(args.begin(), args.end(), [&](std::size_t p) { return safe(context_[p]); });
  }

  bool safe(const Tensor<F>& x) const {
    return std::all_of(x.values.begin(), x.values.end(),
                       [&](F v) { return withinTermRange(static_cast<double>(v), format_); });
  }

  bool unseeded(std::size_t p) const {
    if (p >= seeds_->size()) return true;
    const auto& v = (*seeds_)[p].values;
    return std::all_of(v.begin(), v.end(), [](F s) { return s == F(0); });
  }

  std::string_view engine_;
  const EngineProfile& profile_;
  const Case<F>& c_;
  const Pack<F>* seeds_ = nullptr;  // the seeds of the gradients backward judges
  std::vector<bool> judgedPositions_;  // by the last backward
  const Context<F>& context_;
  const IntervalCase<F> exact_;
  const IeeeFormat format_;
  const ops::RoundingModel<Interval> model_;
  PointContext<F> points_;
  std::vector<std::optional<Tensor<Interval>>> withinBudget_;
  Verdict verdict_ = Verdict::pass();
  std::size_t judged_ = 0;
  std::string lastReason_ = "no node";
};

//! A seed at every position of `graph`: nonzero multiples of 1/4 up to 5/4 in magnitude, both signs,
//! varying with the position and the element (exact in every IEEE format).
template <class F>
Pack<F> probeSeeds(const Graph<F>& graph) {
  Pack<F> seeds;
  for (std::size_t p = 0; p < graph.positionCount(); ++p) {
    const Shape& shape = graph.shapeAt(p);
    seeds.push_back(Tensor<F>(shape, kernels::generate<F>(elementCount(shape), [p](std::size_t i) {
                                const std::size_t k = 7 * p + 3 * i;
                                const F magnitude = static_cast<F>(k % 5 + 1) / F(4);
                                return k % 2 == 0 ? magnitude : -magnitude;
                              })));
  }
  return seeds;
}

//! Node k, a pointwise op, cut out as a case of its own on the engine's values of its arguments, each
//! element that is not finite or lies beyond 2^±⌊emax/4⌋ (where a term is not judged) replaced by
//! 1/2, inside every op's domain; seeded at its output by probeSeeds.
template <class F>
Case<F> termCutOut(const Case<F>& c, const Context<F>& context, std::size_t k) {
  NodeCase<F> cut = nodeCase(c.graph, context, k);
  for (Tensor<F>& input : cut.inputs)
    for (F& v : input.values)
      if (!withinTermRange(static_cast<double>(v), ieeeFormatOf<F>()) || v == F(0)) v = F(0.5);
  Case<F> out{std::move(cut.graph), std::move(cut.inputs), {}, 0, {}, {}};
  out.output = out.graph.positionCount() - 1;
  out.seeds = probeSeeds(out.graph);
  return out;
}

//! At most this many cut-outs a case: each is an engine call of its own, and a large graph whose
//! whole backward judges nothing (a dense node at its end) would otherwise cost one per node, which
//! the work budget does not count. Generated cases hold far fewer pointwise nodes.
inline constexpr std::size_t kMaxTermCutOuts = 64;

//! Node k of `graph` cut out as `cut`, judged forward and backward on the engine; a failure is blamed
//! on node k, its why saying "NODE alone, HOW: ...". `judged` counts a cut-out the engine ran.
//! Nothing when the engine refuses it (the domain oracles judge refusals) or it holds.
template <class F>
std::optional<Verdict> judgeCutOut(const EngineUnderTest<F>& subject, const Case<F>& cut, const Graph<F>& graph,
                                   std::size_t k, std::string_view how, std::size_t& judged) {
  auto execution = subject.engine.compile(cut.graph, *cut.inputs, cut.data);
  if (!execution) return std::nullopt;
  auto dense = (*execution)->backwardDense(cut.seeds);
  if (!dense) return std::nullopt;
  AccuracyJudge<F> judge(subject.engine.name(), cut, (*execution)->context(), *subject.profile);
  std::optional<Verdict> failure = judge.forward();
  if (!failure) failure = judge.backward(*dense, cut.seeds);
  ++judged;
  if (!failure) return std::nullopt;
  failure->why = fmt::format("{} alone, {}: {}", describeNode(graph, k), how, failure->why);
  failure->blamed = {k};
  failure->differences.clear();  // they are positions of the cut-out
  failure->notes.clear();
  return failure;
}

//! The terms of every pointwise node that the whole case's backward passes did not judge (an
//! argument not finite, a reader that could not be judged, a later dense node), judged each on its
//! own cut-out (termCutOut), the first kMaxTermCutOuts of them; the first failure, blamed on the node
//! in the whole case.
template <class F>
std::optional<Verdict> judgeUnjudgedTerms(const EngineUnderTest<F>& subject, const Case<F>& c, const Context<F>& context,
                                          const AccuracyJudge<F>& whole, std::size_t& judged) {
  std::size_t cutOuts = 0;
  for (std::size_t k = c.graph.inputs.size(); k < c.graph.positionCount() && k < context.size(); ++k) {
    const Node<F>& node = c.graph.nodeAt(k);
    if (!ops::isPointwise(node.op) || !ops::hasTerms(node.op) || node.attrs.opaque || whole.termsJudged(k)) continue;
    if (!finiteAttributes(node.attrs)) continue;
    if (cutOuts++ == kMaxTermCutOuts) break;
    if (auto failure = judgeCutOut(subject, termCutOut(c, context, k), c.graph, k,
                                   "on its arguments with what is not finite replaced by 1/2", judged))
      return failure;
  }
  return std::nullopt;
}

//! Each op of one argument with stress values (ops::stressValues) once a case: its first node cut out
//! (termCutOut) with element 0 of its argument at each stress value, judged forward and backward. There
//! a naive formula loses its accuracy (docs/semantics.md §2.6); the generator places them, but a row's
//! hundred cases seldom hold the one value that shows a fault (sigmoid below −709.78 in double), as
//! domain_errors probes each boundary rather than wait for a draw. The first failure, blamed on the node.
template <class F>
std::optional<Verdict> judgeStressValues(const EngineUnderTest<F>& subject, const Case<F>& c, const Context<F>& context,
                                         std::size_t& judged) {
  std::set<OpKind> probed;
  for (std::size_t k = c.graph.inputs.size(); k < c.graph.positionCount() && k < context.size(); ++k) {
    const Node<F>& node = c.graph.nodeAt(k);
    const auto stress = ops::stressValues(node.op);
    if (stress.empty() || node.args.size() != 1 || node.attrs.opaque || !probed.insert(node.op).second) continue;
    for (std::string_view text : stress) {
      Case<F> cut = termCutOut(c, context, k);
      if ((*cut.inputs)[0].size() == 0) break;
      (*cut.inputs)[0].values[0] = parseValue<F>(std::string(text)).value();
      if (auto failure = judgeCutOut(subject, cut, c.graph, k,
                                     fmt::format("with element 0 of its argument at its stress value {}", text), judged))
        return failure;
    }
  }
  return std::nullopt;
}

}  // namespace detail

template <class F>
Verdict accuracy(const EngineUnderTest<F>& subject, const Case<F>& c) {
  for (const Node<F>& node : c.graph.nodes)
    if (node.attrs.opaque && !OpaqueRegistry<Interval>::instance().find(node.attrs.opaque->name))
      return Verdict::skip("an opaque program without an interval definition");
  auto execution = subject.engine.compile(c.graph, *c.inputs, c.data);
  if (!execution) return Verdict::skip("the forward failed (the theorem properties judge its error)");
  detail::AccuracyJudge<F> judge(subject.engine.name(), c, (*execution)->context(), *subject.profile);
  if (auto failure = judge.forward()) return *failure;
  if (auto dense = (*execution)->backwardDense(c.seeds)) {  // its failure is the theorem properties' to judge
    if (auto failure = judge.backward(*dense, c.seeds)) return *failure;
  }
  // Again from a finite, nonzero seed at every position, so that every node's terms are judged with
  // a cotangent that can show a wrong rule: the case's own seeds leave most nodes at cotangent 0
  // (unused, or off the seeded output's path) or at a special value, where a term is not judged.
  const Pack<F> probe = detail::probeSeeds(c.graph);
  if (auto dense = (*execution)->backwardDense(probe))
    if (auto failure = judge.backward(*dense, probe)) {
      failure->why += "; in the backward from accuracy's probe seeds (a seed of ±1/4 to ±5/4 at every position), "
                      "not the case's";
      for (std::size_t p : failure->blamed)
        if (p < probe.size()) failure->notes[p].push_back(noteLine("probe seed", 5, bracketed(probe[p])));
      return *failure;
    }
  // The terms of a pointwise node they did not judge, on a case of its own.
  std::size_t cutOuts = 0;
  if (auto failure = detail::judgeUnjudgedTerms(subject, c, (*execution)->context(), judge, cutOuts)) return *failure;
  Verdict verdict = judge.verdict();
  if (cutOuts > 0 && !verdict.skipped.empty()) return Verdict::pass();  // the cut-outs judged something
  return verdict;
}

//! The accuracy property: accuracy on the case, then each op's stress values on cut-outs of its
//! nodes (detail::judgeStressValues), their other argument values the reference's. A case accuracy
//! could not judge passes where a probe judged something.
template <class F>
Verdict accuracyWithStressValues(const EngineUnderTest<F>& subject, const Case<F>& c) {
  Verdict verdict = accuracy(subject, c);
  if (!verdict.holds) return verdict;
  const bool probes = std::any_of(c.graph.nodes.begin(), c.graph.nodes.end(), [](const Node<F>& node) {
    return !ops::stressValues(node.op).empty() && node.args.size() == 1 && !node.attrs.opaque;
  });
  if (!probes) return verdict;  // nothing to probe: no evaluation of the reference
  auto context = spec::eval(c.graph, *c.inputs, c.data);
  if (!context) return verdict;
  std::size_t probed = 0;
  if (auto failure = detail::judgeStressValues(subject, c, *context, probed)) return *failure;
  if (probed > 0 && !verdict.skipped.empty()) return Verdict::pass();
  return verdict;
}

}  // namespace tc::props
