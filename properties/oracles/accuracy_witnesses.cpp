// Witnesses that the accuracy oracle is tight (issue 45, item 2), run by the test command and by every
// `tapecheck run` that judges accuracy, before its verdict is trusted: for every op and both IEEE
// carriers, an engine whose forward or one of its terms lies about 1.5 budgets from the exact value
// (within (1, 2] budgets) must fail naming the node, and one about 0.5 budgets off must pass. A budget
// loosened (twice too wide, say) passes every correct engine and every wrong one a little off; here
// it is named.
#include "properties/oracles/accuracy_witnesses.h"

#include <fmt/format.h>
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/io/case_file.h"
#include "core/ops/library.hpp"
#include "core/spec/reference.h"
#include "properties/oracles/accuracy.h"

namespace tc::props {
namespace {

// A context (and, from `plantSeeds` alone, dense gradients) a witness chose; other passes are the
// reference's on that context.
template <class T>
class ChosenExecution final : public Execution<T> {
 public:
  ChosenExecution(const Graph<T>& graph, const Data<T>& data, Context<T> context,
                  std::function<void(const Pack<T>& seeds, Pack<T>& gradients)> rewrite)
      : graph_(graph), data_(data), context_(std::move(context)), rewrite_(std::move(rewrite)) {}
  const Context<T>& context() const override { return context_; }
  Result<Pack<T>> backwardDense(const Pack<T>& seeds) const override {
    Pack<T> gradients = spec::backpropAllCtx(graph_, context_, data_, seeds);
    if (rewrite_) rewrite_(seeds, gradients);
    return gradients;
  }
  Result<SingleOutputResult<T>> backwardSingle(std::size_t, const Tensor<T>&) const override { return fail("not used"); }

 private:
  const Graph<T>& graph_;
  const Data<T>& data_;
  Context<T> context_;
  std::function<void(const Pack<T>&, Pack<T>&)> rewrite_;
};

// The reference with element 0 of position `position` set to `value`: in the forward context, or
// (when `inGradient`) in the dense gradients from the seeds `plantSeeds` (the case's) only.
template <class T>
class PlantedEngine final : public Engine<T> {
 public:
  PlantedEngine(std::size_t position, T value, const Pack<T>* plantSeeds = nullptr)
      : position_(position), value_(value), plantSeeds_(plantSeeds) {}
  std::string_view name() const override { return "planted"; }
  Result<std::unique_ptr<const Execution<T>>> compile(const Graph<T>& graph, const Pack<T>& inputs,
                                                      const Data<T>& data) const override {
    auto context = spec::eval(graph, inputs, data);
    if (!context) return std::unexpected(context.error());
    if (!plantSeeds_) (*context)[position_][0] = value_;
    std::function<void(const Pack<T>&, Pack<T>&)> rewrite;
    if (plantSeeds_)
      rewrite = [this](const Pack<T>& seeds, Pack<T>& gradients) {
        if (sameBits(seeds, *plantSeeds_)) gradients[position_][0] = value_;
      };
    return std::make_unique<const ChosenExecution<T>>(graph, data, std::move(*context), std::move(rewrite));
  }

 private:
  static bool sameBits(const Pack<T>& a, const Pack<T>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t p = 0; p < a.size(); ++p) {
      if (a[p].values.size() != b[p].values.size()) return false;
      for (std::size_t i = 0; i < a[p].size(); ++i)
        if (std::bit_cast<std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>>(a[p][i]) !=
            std::bit_cast<std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>>(b[p][i]))
          return false;
    }
    return true;
  }
  std::size_t position_;
  T value_;
  const Pack<T>* plantSeeds_;
};

// One case per op: its node last, on inputs where its budget decides (no value beyond the term
// range, nothing near a power of two). Every op of the op list but opaque must have one.
const std::map<std::string, std::string>& accuracyCases() {
  static const std::map<std::string, std::string> cases{
      {"add", R"("inputs": [{"shape": [1]}, {"shape": [1]}], "values": [["0.1"], ["0.7"]], "nodes": [{"op": "add", "args": [0, 1]}])"},
      {"sub", R"("inputs": [{"shape": [1]}, {"shape": [1]}], "values": [["0.1"], ["0.7"]], "nodes": [{"op": "sub", "args": [0, 1]}])"},
      {"mul", R"("inputs": [{"shape": [1]}, {"shape": [1]}], "values": [["0.1"], ["0.7"]], "nodes": [{"op": "mul", "args": [0, 1]}])"},
      {"div", R"("inputs": [{"shape": [1]}, {"shape": [1]}], "values": [["0.1"], ["0.7"]], "nodes": [{"op": "div", "args": [0, 1]}])"},
      {"max", R"("inputs": [{"shape": [1]}, {"shape": [1]}], "values": [["0.1"], ["0.7"]], "nodes": [{"op": "max", "args": [0, 1]}])"},
      {"min", R"("inputs": [{"shape": [1]}, {"shape": [1]}], "values": [["0.1"], ["0.7"]], "nodes": [{"op": "min", "args": [0, 1]}])"},
      {"neg", R"("inputs": [{"shape": [1]}], "values": [["0.3"]], "nodes": [{"op": "neg", "args": [0]}])"},
      {"square", R"("inputs": [{"shape": [1]}], "values": [["0.3"]], "nodes": [{"op": "square", "args": [0]}])"},
      {"scale", R"("inputs": [{"shape": [1]}], "values": [["0.3"]], "nodes": [{"op": "scale", "args": [0], "attrs": {"c": "0.7"}}])"},
      {"inv", R"("inputs": [{"shape": [1]}], "values": [["0.3"]], "nodes": [{"op": "inv", "args": [0]}])"},
      {"relu", R"("inputs": [{"shape": [1]}], "values": [["0.3"]], "nodes": [{"op": "relu", "args": [0]}])"},
      {"abs", R"("inputs": [{"shape": [1]}], "values": [["-0.3"]], "nodes": [{"op": "abs", "args": [0]}])"},
      {"clamp", R"("inputs": [{"shape": [1]}], "values": [["0.3"]], "nodes": [{"op": "clamp", "args": [0], "attrs": {"lo": "-1", "hi": "1"}}])"},
      {"exp", R"("inputs": [{"shape": [1]}], "values": [["0.3"]], "nodes": [{"op": "exp", "args": [0]}])"},
      {"log", R"("inputs": [{"shape": [1]}], "values": [["0.3"]], "nodes": [{"op": "log", "args": [0]}])"},
      {"sqrt", R"("inputs": [{"shape": [1]}], "values": [["0.3"]], "nodes": [{"op": "sqrt", "args": [0]}])"},
      {"tanh", R"("inputs": [{"shape": [1]}], "values": [["0.3"]], "nodes": [{"op": "tanh", "args": [0]}])"},
      {"sigmoid", R"("inputs": [{"shape": [1]}], "values": [["0.3"]], "nodes": [{"op": "sigmoid", "args": [0]}])"},
      {"softplus", R"("inputs": [{"shape": [1]}], "values": [["0.3"]], "nodes": [{"op": "softplus", "args": [0]}])"},
      {"sin", R"("inputs": [{"shape": [1]}], "values": [["0.3"]], "nodes": [{"op": "sin", "args": [0]}])"},
      {"cos", R"("inputs": [{"shape": [1]}], "values": [["0.3"]], "nodes": [{"op": "cos", "args": [0]}])"},
      {"sum", R"("inputs": [{"shape": [3]}], "values": [["100.3", "0.7", "-99.9"]], "nodes": [{"op": "sum", "args": [0]}])"},
      {"sum_axis", R"("inputs": [{"shape": [3, 2]}], "values": [["100.3", "0.1", "0.7", "0.2", "-99.9", "0.3"]], "nodes": [{"op": "sum_axis", "args": [0], "attrs": {"axis": 0}}])"},
      {"mean", R"("inputs": [{"shape": [3]}], "values": [["100.3", "0.7", "-99.9"]], "nodes": [{"op": "mean", "args": [0]}])"},
      {"dot", R"("inputs": [{"shape": [2]}, {"shape": [2]}], "values": [["10.3", "0.7"], ["9.9", "-145.1"]], "nodes": [{"op": "dot", "args": [0, 1]}])"},
      {"matmul", R"("inputs": [{"shape": [2, 2]}, {"shape": [2, 2]}], "values": [["10.3", "0.7", "0.3", "0.5"], ["9.9", "0.1", "-145.1", "0.3"]], "nodes": [{"op": "matmul", "args": [0, 1]}])"},
      {"transpose", R"("inputs": [{"shape": [2, 2]}], "values": [["0.3", "0.7", "0.1", "0.5"]], "nodes": [{"op": "transpose", "args": [0]}])"},
      {"linear", R"("inputs": [{"shape": [1, 2]}, {"shape": [2]}, {"shape": [1]}], "values": [["10.3", "0.7"], ["9.9", "-145.1"], ["0.3"]], "nodes": [{"op": "linear", "args": [0, 1, 2]}])"},
      {"reshape", R"("inputs": [{"shape": [2, 2]}], "values": [["0.3", "0.7", "0.1", "0.5"]], "nodes": [{"op": "reshape", "args": [0], "attrs": {"shape": [4]}}])"},
      {"broadcast", R"("inputs": [{"shape": [2]}], "values": [["0.3", "0.7"]], "nodes": [{"op": "broadcast", "args": [0], "attrs": {"shape": [3, 2]}}])"},
      {"concat0", R"("inputs": [{"shape": [1]}, {"shape": [2]}], "values": [["0.3"], ["0.7", "0.1"]], "nodes": [{"op": "concat0", "args": [0, 1]}])"},
      {"slice0", R"("inputs": [{"shape": [3]}], "values": [["0.3", "0.7", "0.1"]], "nodes": [{"op": "slice0", "args": [0], "attrs": {"start": 1, "len": 2}}])"},
      {"const", R"("inputs": [{"shape": [1]}], "values": [["0.3"]], "nodes": [{"op": "const", "attrs": {"shape": [2], "values": ["0.3", "0.7"]}}])"},
      {"detach", R"("inputs": [{"shape": [1]}], "values": [["0.3"]], "nodes": [{"op": "detach", "args": [0]}])"},
      {"mask", R"("inputs": [{"shape": [2]}], "values": [["0.3", "0.7"]], "data": {"m": {"shape": [2], "values": ["0.7", "1"]}}, "nodes": [{"op": "mask", "args": [0], "attrs": {"key": "m"}}])"},
      {"gather0", R"("inputs": [{"shape": [3]}], "values": [["0.3", "0.7", "0.1"]], "data": {"g": {"indices": [1, 1, 0]}}, "nodes": [{"op": "gather0", "args": [0], "attrs": {"key": "g"}}])"},
      {"mse_loss", R"("inputs": [{"shape": [2]}, {"shape": [2]}], "values": [["100.3", "0.7"], ["99.9", "0.1"]], "nodes": [{"op": "mse_loss", "args": [0, 1]}])"},
      {"softmax_last", R"("inputs": [{"shape": [3]}], "values": [["0.3", "0.7", "-1.1"]], "nodes": [{"op": "softmax_last", "args": [0]}])"},
      {"log_softmax_last", R"("inputs": [{"shape": [3]}], "values": [["0.3", "0.7", "-1.1"]], "nodes": [{"op": "log_softmax_last", "args": [0]}])"},
  };
  return cases;
}

// Reals at more precision than the intervals' endpoints need for a distance.
class Real {
 public:
  Real() { mpfr_init2(x_, 400), mpfr_set_zero(x_, 1); }
  explicit Real(mpfr_srcptr v) : Real() { mpfr_set(x_, v, MPFR_RNDN); }
  template <class F>
  static Real of(F v) {
    Real r;
    mpfr_set_d(r.x_, static_cast<double>(v), MPFR_RNDN);
    return r;
  }
  Real(const Real& o) : Real() { mpfr_set(x_, o.x_, MPFR_RNDN); }
  Real& operator=(const Real& o) {
    mpfr_set(x_, o.x_, MPFR_RNDN);
    return *this;
  }
  ~Real() { mpfr_clear(x_); }
  mpfr_ptr get() { return x_; }
  mpfr_srcptr get() const { return x_; }
  friend Real operator+(const Real& a, const Real& b) { return op(a, b, mpfr_add); }
  friend Real operator-(const Real& a, const Real& b) { return op(a, b, mpfr_sub); }
  friend Real operator*(double a, const Real& b) {
    Real r;
    mpfr_mul_d(r.x_, b.x_, a, MPFR_RNDN);
    return r;
  }
  friend bool operator<(const Real& a, const Real& b) { return mpfr_less_p(a.x_, b.x_); }
  friend bool operator<=(const Real& a, const Real& b) { return mpfr_lessequal_p(a.x_, b.x_); }
  bool zero() const { return mpfr_zero_p(x_); }
  Real abs() const {
    Real r;
    mpfr_abs(r.x_, x_, MPFR_RNDN);
    return r;
  }
  template <class F>
  F nearest() const {
    if constexpr (std::is_same_v<F, float>) return mpfr_get_flt(x_, MPFR_RNDN);
    else return mpfr_get_d(x_, MPFR_RNDN);
  }

 private:
  static Real op(const Real& a, const Real& b, int (*f)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t)) {
    Real r;
    f(r.x_, a.x_, b.x_, MPFR_RNDN);
    return r;
  }
  mpfr_t x_;
};

Real lowerOf(const Interval& x) { return Real(&x.v.backend().data()->left); }
Real upperOf(const Interval& x) { return Real(&x.v.backend().data()->right); }

// ulp(x) of format F at the larger end of the enclosure, as §2.6 states it: 2^(e − p + 1), e the
// binade (never below the smallest normal one).
template <class F>
Real ulpAt(const Interval& exact) {
  const Real lo = lowerOf(exact).abs(), hi = upperOf(exact).abs();
  const Real& larger = hi < lo ? lo : hi;
  long binade = std::numeric_limits<F>::min_exponent - 1;
  if (!larger.zero()) binade = std::max<long>(binade, mpfr_get_exp(larger.get()) - 1);
  Real ulp;
  mpfr_set_si_2exp(ulp.get(), 1, binade - std::numeric_limits<F>::digits + 1, MPFR_RNDN);
  return ulp;
}

// How far v lies outside the enclosure (0 inside it).
template <class F>
Real distanceFrom(const Interval& exact, F v) {
  const Real x = Real::of(v), lo = lowerOf(exact), hi = upperOf(exact);
  if (x < lo) return lo - x;
  if (hi < x) return x - hi;
  return Real();
}

template <class F>
F step(F v, int steps) {
  for (int s = 0; s < std::abs(steps); ++s) v = std::nextafter(v, steps > 0 ? std::numeric_limits<F>::infinity() : -std::numeric_limits<F>::infinity());
  return v;
}

// A value just past the budget (its distance from the enclosure in (B, 2B], nearest 1.5B; with
// B = 0 the first value beyond it) and one within it (nearest 0.5B, else the reference's own).
template <class F>
struct Straddle {
  F outside;
  F inside;
};

template <class F>
std::optional<Straddle<F>> straddle(const Interval& exact, const Real& budget, F reference) {
  const Real lo = lowerOf(exact), hi = upperOf(exact);
  if (budget.zero()) {
    F beyond = hi.nearest<F>();
    while (distanceFrom(exact, beyond).zero()) beyond = step(beyond, 1);
    return Straddle<F>{beyond, reference};
  }
  auto nearestTo = [&](double share, auto accept) -> std::optional<F> {
    std::optional<F> best;
    Real bestMiss;
    for (const Real& target : {hi + share * budget, lo - share * budget})
      for (int s = -3; s <= 3; ++s) {
        const F v = step(target.nearest<F>(), s);
        const Real d = distanceFrom(exact, v);
        if (!accept(d)) continue;
        const Real miss = (d - share * budget).abs();
        if (!best || miss < bestMiss) best = v, bestMiss = miss;
      }
    return best;
  };
  auto outside = nearestTo(1.5, [&](const Real& d) { return budget < d && d <= 2.0 * budget; });
  auto inside = nearestTo(0.5, [&](const Real& d) { return d <= budget; });
  if (!outside) return std::nullopt;
  return Straddle<F>{*outside, inside.value_or(reference)};
}

// The case's values on the interval carrier: every position before `k` of the reference's
// context, as exact points.
template <class F>
std::vector<Tensor<Interval>> pointsBefore(const Context<F>& context, std::size_t k) {
  std::vector<Tensor<Interval>> points;
  for (std::size_t p = 0; p < k; ++p)
    points.push_back(mapTensor<Interval>(context[p], [](F v) { return Interval(Mpfi(static_cast<double>(v))); }));
  return points;
}

template <class F>
Real forwardBudget(OpKind op, const Interval& exact, const Tensor<Interval>& accumulated, std::size_t i) {
  Real budget = ops::accuracyUlps(op) * ulpAt<F>(exact);
  if (!accumulated.values.empty()) budget = budget + upperOf(accumulated[i]);
  return budget;
}

// The witnesses of one op on carrier F, its forward and each term straddling the budget; what the
// oracle judged wrongly, or why no witness could be made, appended to `faults`.
template <class F>
void witnessesOf(const std::string& op, const std::string& body, std::vector<std::string>& faults) {
  const std::string where = op + " on " + std::string(Carrier<F>::name);
  auto parsed = parseCase<F>(R"({"tapecheck": 1, )" + body + "}");
  if (!parsed) return faults.push_back(where + ": the witness case does not load: " + parsed.error().message);
  Case<F> c = std::move(*parsed);
  const std::size_t k = c.graph.positionCount() - 1;
  auto context = spec::eval(c.graph, *c.inputs, c.data);
  if (!context) return faults.push_back(where + ": the witness case does not evaluate");
  const detail::IntervalCase<F> exact(c);
  const std::vector<Tensor<Interval>> points = pointsBefore(*context, k);
  auto y = validateAndForward(exact.graph, std::span<const Tensor<Interval>>(points), exact.data, k);
  if (!y) return faults.push_back(where + ": no exact value on intervals");
  const auto model = roundingModelOf(ieeeFormatOf<F>());
  const Tensor<Interval> accumulated =
      accumulatedErrorAt(exact.graph, std::span<const Tensor<Interval>>(points), exact.data, k, *y, model);
  const OpKind kind = c.graph.nodeAt(k).op;
  const std::string node = "node " + std::to_string(k) + " (" + op + ")";
  // An engine off by `value` at `position` must fail naming `named`; one within the budget must pass.
  auto judge = [&](const std::string& what, const Straddle<F>& s, std::size_t position, const Pack<F>* seeds,
                   const std::string& named) {
    const Verdict off = accuracy<F>(PlantedEngine<F>(position, s.outside, seeds), c);
    if (off.holds)
      faults.push_back(fmt::format("{}: {} about 1.5 budgets off ({}) passes", where, what, s.outside));
    else if (off.why.find(named) == std::string::npos)
      faults.push_back(fmt::format("{}: {} about 1.5 budgets off fails without naming '{}': {}", where, what, named, off.why));
    const Verdict within = accuracy<F>(PlantedEngine<F>(position, s.inside, seeds), c);
    if (!within.holds) faults.push_back(fmt::format("{}: {} within the budget ({}) fails: {}", where, what, s.inside, within.why));
  };

  auto forward = straddle<F>((*y)[0], forwardBudget<F>(kind, (*y)[0], accumulated, 0), (*context)[k][0]);
  if (!forward) return faults.push_back(where + ": no value of the format lies between 1 and 2 budgets from the exact forward");
  judge("the forward", *forward, k, nullptr, node + ", element 0: planted computes");

  // Each term, from a seed ct at the node, on the forward values within budget.
  if (!ops::hasTerms(kind)) return;
  Tensor<Interval> widened = *y;
  for (std::size_t i = 0; i < widened.size(); ++i) {
    const Real b = forwardBudget<F>(kind, (*y)[i], accumulated, i);
    Interval& w = widened[i];
    mpfr_sub(&w.v.backend().data()->left, &w.v.backend().data()->left, b.get(), MPFR_RNDD);
    mpfr_add(&w.v.backend().data()->right, &w.v.backend().data()->right, b.get(), MPFR_RNDU);
  }
  const Node<F>& n = c.graph.nodeAt(k);
  for (std::size_t slot = 0; slot < n.args.size(); ++slot) {
    const std::size_t p = n.args[slot];
    const std::string what = "the term for argument " + std::to_string(slot);
    std::optional<Straddle<F>> term;
    for (F ct : {F(3), F(0.7), F(1.3), F(-2.5), F(5.1), F(0.3), F(-0.9)}) {
      c.seeds = Pack<F>();
      for (std::size_t q = 0; q < c.graph.positionCount(); ++q)
        c.seeds.push_back(Tensor<F>(c.graph.shapeAt(q), std::vector<F>(elementCount(c.graph.shapeAt(q)), q == k ? ct : F(0))));
      const Tensor<Interval> cts = mapTensor<Interval>(c.seeds[k], [](F v) { return Interval(Mpfi(static_cast<double>(v))); });
      auto terms = termsAndErrorAt(exact.graph, std::span<const Tensor<Interval>>(points), exact.data, k, widened, cts, model);
      std::optional<std::size_t> t;
      for (std::size_t j = 0; j < terms.terms.size(); ++j)
        if (terms.terms[j].arg == slot) t = j;
      if (!t) return faults.push_back(where + ": no exact term for argument " + std::to_string(slot));
      const F reference = spec::backpropAllCtx(c.graph, *context, c.data, c.seeds)[p][0];
      // The position's budget: the term's, and where the term may arrive in parts (square as x·x),
      // γ of adding them on the term's magnitude (the seed there is 0, no addend).
      Interval budget = terms.error[*t].value[0];
      if (const std::size_t parts = ops::termAddends(kind); parts > 1)
        budget = budget + model.gamma(Carrier<Interval>::fromInt(static_cast<std::int64_t>(parts - 1))) *
                              (Carrier<Interval>::abs(terms.terms[*t].value[0]) + budget);
      term = straddle<F>(terms.terms[*t].value[0], upperOf(budget), reference);
      if (term) break;
    }
    if (!term) {
      faults.push_back(where + ": no cotangent puts a value of the format between 1 and 2 budgets from the exact " + what);
      continue;
    }
    judge(what, *term, p, &c.seeds, node + "'s term for position " + std::to_string(p) + ", element 0: planted computes");
  }
}

}  // namespace

template <class F>
std::vector<std::string> accuracyWitnessFaults() {
  std::vector<std::string> faults;
  for (std::size_t i = 0; i < kOpCount; ++i) {
    const auto kind = static_cast<OpKind>(i);
    if (kind == OpKind::opaque) continue;  // no budget: not judged
    const std::string op(opName(kind));
    auto found = accuracyCases().find(op);
    if (found == accuracyCases().end()) {
      faults.push_back(op + ": no accuracy witness case");
      continue;
    }
    witnessesOf<F>(op, found->second, faults);
  }
  return faults;
}

template std::vector<std::string> accuracyWitnessFaults<double>();
template std::vector<std::string> accuracyWitnessFaults<float>();

}  // namespace tc::props
