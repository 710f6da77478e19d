// The forward oracle (docs/semantics.md §3.2): the naive definitions of properties/oracles/
// naive_forward.h give the values docs/semantics.md §2 states, a correct engine passes forward_oracle on
// every carrier, and an engine whose forward is wrong — with a backward that is the exact adjoint of
// its wrong forward, as a mistake in core/ops that every layer shares would have — fails it, naming
// the position, the op and both values.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>

#include "core/carriers/interval.h"
#include "core/io/case_file.h"
#include "core/ops/opaque.h"
#include "properties/oracles/naive_forward.hpp"
#include "properties/runner/all.h"
#include "properties/runner/runner.h"

namespace tc {
namespace {

// ---- The naive definitions, on values worked out from docs/semantics.md §2 by hand ----------------

template <class T>
Tensor<T> tensor(const Shape& shape, std::initializer_list<T> values) {
  return Tensor<T>(shape, std::vector<T>(values));
}

bool negativeZero(double x) { return x == 0 && std::signbit(x); }
bool positiveZero(double x) { return x == 0 && !std::signbit(x); }

TEST(NaiveForward, TheSignOfZeroFollowsTheBitLevelConventions) {
  const Tensor<double> minusZero = tensor<double>({2}, {-0.0, 0.0});
  const Tensor<double> plusZero = tensor<double>({2}, {0.0, -0.0});
  // max(−0, +0) = −0 and max(+0, −0) = +0: a tie returns a; min likewise.
  const Tensor<double> mx = props::naive::max(minusZero, plusZero);
  EXPECT_TRUE(negativeZero(mx[0]) && positiveZero(mx[1]));
  const Tensor<double> mn = props::naive::min(minusZero, plusZero);
  EXPECT_TRUE(negativeZero(mn[0]) && positiveZero(mn[1]));
  // relu(−0) = +0, abs(−0) = +0, neg(+0) = −0, clamp passes −0 through when 0 is inside.
  EXPECT_TRUE(positiveZero(props::naive::relu(minusZero, false)[0]));
  EXPECT_TRUE(positiveZero(props::naive::abs(minusZero)[0]));
  EXPECT_TRUE(negativeZero(props::naive::neg(plusZero)[0]));
  EXPECT_TRUE(negativeZero(props::naive::clamp(minusZero, -1.0, 1.0)[0]));
  // NaN: relu gives +0 (NaN when it propagates), abs clears its sign, max of an unordered pair is NaN.
  const double nan = std::nan("");
  const Tensor<double> nans = tensor<double>({1}, {-nan});
  EXPECT_TRUE(positiveZero(props::naive::relu(nans, false)[0]));
  EXPECT_TRUE(std::isnan(props::naive::relu(nans, true)[0]));
  EXPECT_FALSE(std::signbit(props::naive::abs(nans)[0]));
  EXPECT_TRUE(std::isnan(props::naive::max(nans, tensor<double>({1}, {1.0}))[0]));
  // Sums fold from +0: a sum of −0s is +0.
  EXPECT_TRUE(positiveZero(props::naive::sum(tensor<double>({2}, {-0.0, -0.0}))[0]));
}

TEST(NaiveForward, StructuralOpsMoveEveryElementWhereTheirDefinitionSays) {
  using R = Rational;
  const Tensor<R> x = tensor<R>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(props::naive::transpose(x).values, (std::vector<R>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(props::naive::transpose(x).shape, (Shape{3, 2}));
  EXPECT_EQ(props::naive::concat0(x, tensor<R>({1, 3}, {7, 8, 9})).values, (std::vector<R>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(props::naive::slice0(tensor<R>({3, 1}, {1, 2, 3}), 1, 2).values, (std::vector<R>{2, 3}));
  EXPECT_EQ(props::naive::gather0(x, {1, 1, 0}).value().values, (std::vector<R>{4, 5, 6, 4, 5, 6, 1, 2, 3}));
  EXPECT_FALSE(props::naive::gather0(x, {2}).has_value());
  EXPECT_EQ(props::naive::broadcast(tensor<R>({3}, {1, 2, 3}), Shape{2, 3}).values, (std::vector<R>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(props::naive::sumAxis(x, 0).values, (std::vector<R>{5, 7, 9}));
  EXPECT_EQ(props::naive::sumAxis(x, 1).values, (std::vector<R>{6, 15}));
  EXPECT_EQ(props::naive::sumAxis(tensor<R>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), 1).values, (std::vector<R>{4, 6, 12, 14}));
  EXPECT_EQ(props::naive::matmul(x, tensor<R>({3, 1}, {1, 0, -1})).values, (std::vector<R>{-2, -2}));
  EXPECT_EQ(props::naive::matmul(x, tensor<R>({3}, {1, 1, 1})).values, (std::vector<R>{6, 15}));
  EXPECT_EQ(props::naive::linear(x, tensor<R>({3}, {1, 1, 1}), tensor<R>({2}, {1, -1})).values, (std::vector<R>{7, 14}));
  EXPECT_EQ(props::naive::mean(x).values, (std::vector<R>{R(21) / 6}));
  EXPECT_EQ(props::naive::mseLoss(tensor<R>({2}, {1, 2}), tensor<R>({2}, {0, 0})).values, (std::vector<R>{R(5) / 2}));
  EXPECT_FALSE(props::naive::div(x, tensor<R>({2, 3}, {1, 1, 0, 1, 1, 1})).has_value());
}

// ---- A correct engine passes on every carrier --------------------------------------------------------

template <class T>
class ForwardOracleOnACorrectEngine : public ::testing::Test {};
using Carriers = ::testing::Types<Rational, RationalNoEq, ModP, Interval, double, float>;
TYPED_TEST_SUITE(ForwardOracleOnACorrectEngine, Carriers);

// On IEEE carriers the property exists in the exact domain only; elsewhere in both.
TYPED_TEST(ForwardOracleOnACorrectEngine, ManyRandomCasesPass) {
  using T = TypeParam;
  const gen::Domain domain = std::is_floating_point_v<T> ? gen::Domain::exact : gen::Domain::general;
  const props::NamedProperty<T>* property = props::findProperty<T>("forward_oracle");
  ASSERT_NE(property, nullptr);
  const std::pair<std::string_view, std::uint64_t> runs[] = {{"compiled", 1}, {"compiled", 2}, {"reference", 3}, {"tape", 4}};
  for (const auto& [engine, seed] : runs) {
    props::RunSettings settings{100, seed, 100, false, domain};
    props::PropertyRun run = props::runProperty(*property, builtinEngine<T>(engine), settings);
    EXPECT_TRUE(run.passed()) << engine << " seed " << seed << ": " << run.whyNotPassed();
    EXPECT_GE(run.compared(), 40u) << engine << " seed " << seed << ": " << run.partlyCompared();
  }
}

TEST(ForwardOracleRegistry, IeeeCarriersHaveItInTheExactDomainOnly) {
  auto has = [](const auto& all) {
    return std::ranges::any_of(all, [](const auto& p) { return p.name == "forward_oracle"; });
  };
  EXPECT_TRUE(has(props::propertiesFor<Rational>()));
  EXPECT_TRUE(has(props::propertiesFor<RationalNoEq>()));
  EXPECT_TRUE(has(props::propertiesFor<ModP>()));
  EXPECT_TRUE(has(props::propertiesFor<Interval>()));
  EXPECT_FALSE(has(props::propertiesFor<double>()));
  EXPECT_TRUE(has(props::propertiesFor<double>(gen::Domain::exact)));
  EXPECT_TRUE(has(props::propertiesFor<float>(gen::Domain::exact)));
}

// ---- Engines with a wrong forward and the exact adjoint of it as their backward ----------------------

// An execution of the reference engine on a rewritten graph, which it owns.
template <class T>
class RewrittenExecution final : public Execution<T> {
 public:
  RewrittenExecution(std::unique_ptr<Graph<T>> graph, std::unique_ptr<const Execution<T>> inner)
      : graph_(std::move(graph)), inner_(std::move(inner)) {}
  const Context<T>& context() const override { return inner_->context(); }
  Result<Pack<T>> backwardDense(const Pack<T>& seeds) const override { return inner_->backwardDense(seeds); }
  Result<SingleOutputResult<T>> backwardSingle(std::size_t output, const Tensor<T>& seed) const override {
    return inner_->backwardSingle(output, seed);
  }

 private:
  std::unique_ptr<Graph<T>> graph_;  // outlives inner_, which was compiled from it
  std::unique_ptr<const Execution<T>> inner_;
};

// The reference engine on the case's graph rewritten in place (same positions and shapes): a wrong
// forward, and as its backward the reference's terms of the op it really ran — the exact adjoint of
// the wrong forward, as a mistake in core/ops that every layer shares would have. (Such an engine
// also fails the properties that compare it with tapecheck's reference, which would share a mistake
// in core/ops; forward_oracle compares with nothing of core/ops.)
template <class T>
class WrongForwardEngine final : public Engine<T> {
 public:
  WrongForwardEngine(std::string_view name, std::function<void(Graph<T>&)> rewrite)
      : name_(name), rewrite_(std::move(rewrite)) {}
  std::string_view name() const override { return name_; }
  Result<std::unique_ptr<const Execution<T>>> compile(const Graph<T>& graph, const Pack<T>& inputs,
                                                      const Data<T>& data) const override {
    auto rewritten = std::make_unique<Graph<T>>(graph);
    rewrite_(*rewritten);
    auto inner = builtinEngine<T>("reference").compile(*rewritten, inputs, data);
    if (!inner) return std::unexpected(inner.error());
    return std::make_unique<const RewrittenExecution<T>>(std::move(rewritten), std::move(*inner));
  }

 private:
  std::string_view name_;
  std::function<void(Graph<T>&)> rewrite_;
};

// Rewrites every node of op `op` by `f`.
template <class T>
std::function<void(Graph<T>&)> everyNode(OpKind op, std::function<void(Graph<T>&, Node<T>&)> f) {
  return [op, f](Graph<T>& g) {
    for (Node<T>& n : g.nodes)
      if (n.op == op) f(g, n);
  };
}

// transpose as a reshape to [n, m]: another permutation of the same elements.
template <class T>
const WrongForwardEngine<T> kTransposePermuted("transpose-permuted", everyNode<T>(OpKind::transpose, [](Graph<T>&, Node<T>& n) {
                                                 n.op = OpKind::reshape;
                                                 n.attrs.shape = n.shape;
                                               }));
// gather0 reading every listed row one further down (wrapping around).
template <class T>
const WrongForwardEngine<T> kGatherOffByOne("gather0-off-by-one", everyNode<T>(OpKind::gather0, [](Graph<T>& g, Node<T>& n) {
                                              const std::size_t rows = g.shapeAt(n.args[0])[0];
                                              for (std::size_t& r : g.schema.indices.at(n.attrs.key)) r = (r + 1) % rows;
                                            }));
// max and min with their arguments swapped: the same value except at a tie, where they return the
// other argument (max(−0, +0) = +0). The terms share a tie evenly, so the backward is the same.
template <class T>
const WrongForwardEngine<T> kTieReturnsOther("tie-returns-other", [](Graph<T>& g) {
  for (Node<T>& n : g.nodes)
    if (n.op == OpKind::max || n.op == OpKind::min) std::swap(n.args[0], n.args[1]);
});
// mean without its division: Σ x.
template <class T>
const WrongForwardEngine<T> kMeanUndivided("mean-undivided", everyNode<T>(OpKind::mean, [](Graph<T>&, Node<T>& n) {
                                             n.op = OpKind::sum;
                                           }));
// concat0 with its arguments swapped: rows of b, then a.
template <class T>
const WrongForwardEngine<T> kConcatSwapped("concat0-swapped", everyNode<T>(OpKind::concat0, [](Graph<T>&, Node<T>& n) {
                                             std::swap(n.args[0], n.args[1]);
                                           }));

// log_softmax with a misplaced parenthesis, x − (max − log Σ exp(x − max)), as an opaque program on
// intervals whose dense program is its exact adjoint (the maximum held constant): ct + softmax·Σct.
const OpaqueDef<Interval>* misgroupedLogSoftmax() {
  static const OpaqueDef<Interval>* def = [] {
    OpaqueDef<Interval> d;
    d.name = "log_softmax_misgrouped";
    d.description = "x − (max − log Σ exp(x − max)) per row";
    d.arity = 1;
    d.needs = Requirement::transcendental;
    d.shape = [](std::span<const Shape* const> args) -> Result<Shape> { return *args[0]; };
    auto rows = [](const Tensor<Interval>& x, auto f) {
      const std::size_t n = x.shape.back();
      for (std::size_t start = 0; start < x.size(); start += n) {
        Interval m = x[start];
        for (std::size_t i = 1; i < n; ++i)
          if (x[start + i] > m) m = x[start + i];
        Interval total = zero<Interval>();
        for (std::size_t i = 0; i < n; ++i) total = total + Carrier<Interval>::exp(x[start + i] - m);
        f(start, n, m, total);
      }
    };
    d.forward = [rows](std::span<const Tensor<Interval>* const> args) {
      const Tensor<Interval>& x = *args[0];
      Tensor<Interval> y = x;
      rows(x, [&](std::size_t start, std::size_t n, const Interval& m, const Interval& total) {
        for (std::size_t i = 0; i < n; ++i) y[start + i] = x[start + i] - (m - Carrier<Interval>::log(total));
      });
      return y;
    };
    d.program = [rows](const OpaqueProgramCall<Interval>& call) {
      Pack<Interval> out;
      for (const Tensor<Interval>& t : call.prefix) out.push_back(Tensor<Interval>::filled(t.shape, zero<Interval>()));
      const Tensor<Interval>& x = call.prefix[call.args[0]];
      Tensor<Interval>& g = out[call.args[0]];
      rows(x, [&](std::size_t start, std::size_t n, const Interval& m, const Interval& total) {
        Interval cts = zero<Interval>();
        for (std::size_t i = 0; i < n; ++i) cts = cts + call.ct[start + i];
        for (std::size_t i = 0; i < n; ++i)
          g[start + i] = g[start + i] + (call.ct[start + i] + (Carrier<Interval>::exp(x[start + i] - m) / total) * cts);
      });
      return out;
    };
    return OpaqueRegistry<Interval>::instance().add(std::move(d)).value();
  }();
  return def;
}

const WrongForwardEngine<Interval> kLogSoftmaxMisgrouped(
    "log_softmax-misgrouped", everyNode<Interval>(OpKind::log_softmax_last, [](Graph<Interval>&, Node<Interval>& n) {
      n.op = OpKind::opaque;
      n.attrs.opaque = misgroupedLogSoftmax();
    }));

template <class T>
props::Verdict forwardOracle(const Engine<T>& engine, const std::string& json) {
  auto c = parseCase<T>(json);
  EXPECT_TRUE(c.has_value()) << (c ? "" : c.error().message);
  return props::findProperty<T>("forward_oracle")->check(engine, *c);
}

template <class T>
props::Verdict adjointIdentity(const Engine<T>& engine, const std::string& json) {
  return props::findProperty<T>("adjoint_identity")->check(engine, parseCase<T>(json).value());
}

// The verdict fails, naming the position and the op, and lists both values at that position.
void expectCaught(const props::Verdict& verdict, std::string_view where, std::string_view engine, std::size_t position,
                  std::string_view engineValues, std::string_view naiveValues) {
  EXPECT_FALSE(verdict.holds) << where;
  EXPECT_NE(verdict.why.find(where), std::string::npos) << verdict.why;
  EXPECT_EQ(verdict.leftName, engine);
  EXPECT_EQ(verdict.rightName, "naive forward");
  ASSERT_FALSE(verdict.differences.empty()) << verdict.why;
  EXPECT_EQ(verdict.differences[0].position, position) << verdict.why;
  EXPECT_EQ(verdict.differences[0].left, engineValues) << verdict.why;
  EXPECT_EQ(verdict.differences[0].right, naiveValues) << verdict.why;
}

const std::string kTranspose = R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}], "values": [["1", "2", "3", "4", "5", "6"]],
    "nodes": [{"op": "transpose", "args": [0]}, {"op": "sum", "args": [1]}]})";
const std::string kGather = R"({"tapecheck": 1, "inputs": [{"shape": [3, 2]}], "values": [["1", "2", "3", "4", "5", "6"]],
    "data": {"rows": {"indices": [2, 0]}}, "nodes": [{"op": "gather0", "args": [0], "attrs": {"key": "rows"}}]})";
const std::string kTies = R"({"tapecheck": 1, "inputs": [{"shape": [2]}, {"shape": [2]}],
    "values": [["-0", "1"], ["0", "2"]], "nodes": [{"op": "max", "args": [0, 1]}, {"op": "min", "args": [1, 0]}]})";
const std::string kMean = R"({"tapecheck": 1, "inputs": [{"shape": [4]}], "values": [["1", "2", "3", "4"]],
    "nodes": [{"op": "mean", "args": [0]}]})";
const std::string kConcat = R"({"tapecheck": 1, "inputs": [{"shape": [1, 2]}, {"shape": [2, 2]}],
    "values": [["1", "2"], ["3", "4", "5", "6"]], "nodes": [{"op": "concat0", "args": [0, 1]}]})";
const std::string kLogSoftmax = R"({"tapecheck": 1, "inputs": [{"shape": [2, 2]}], "values": [["0", "1", "2", "4"]],
    "nodes": [{"op": "log_softmax_last", "args": [0]}]})";

TEST(ForwardOracleCatches, ATransposeThatPermutesOtherwise) {
  props::Verdict verdict = forwardOracle<Rational>(kTransposePermuted<Rational>, kTranspose);
  expectCaught(verdict, "position 1 (transpose): value 1: 2 vs 4", "transpose-permuted", 1, "[3, 2] 1 2 3 4 5 6",
               "[3, 2] 1 4 2 5 3 6");
  EXPECT_EQ(verdict.differences.size(), 1u) << "sum is judged on the engine's own argument";
  EXPECT_TRUE(forwardOracle<Rational>(builtinEngine<Rational>("compiled"), kTranspose).holds);
  expectCaught(forwardOracle<double>(kTransposePermuted<double>, kTranspose), "position 1 (transpose)", "transpose-permuted",
               1, "[3, 2] 1 2 3 4 5 6", "[3, 2] 1 4 2 5 3 6");
  expectCaught(forwardOracle<ModP>(kTransposePermuted<ModP>, kTranspose), "position 1 (transpose)", "transpose-permuted", 1,
               "[3, 2] 1 2 3 4 5 6", "[3, 2] 1 4 2 5 3 6");
}

TEST(ForwardOracleCatches, AGatherOneRowOff) {
  expectCaught(forwardOracle<Rational>(kGatherOffByOne<Rational>, kGather), "position 1 (gather0): value 0: 1 vs 5",
               "gather0-off-by-one", 1, "[2, 2] 1 2 3 4", "[2, 2] 5 6 1 2");
  expectCaught(forwardOracle<Interval>(kGatherOffByOne<Interval>, kGather), "position 1 (gather0)", "gather0-off-by-one", 1,
               "[2, 2] 1 2 3 4", "[2, 2] 5 6 1 2");
}

// A tie that returns the other argument differs only in the sign of zero: caught on IEEE carriers,
// where semantics.md §2.2 fixes it (max(−0, +0) = −0, min(+0, −0) = +0); rationals have no −0.
TEST(ForwardOracleCatches, ATieReturningTheOtherArgumentsZero) {
  props::Verdict verdict = forwardOracle<double>(kTieReturnsOther<double>, kTies);
  expectCaught(verdict, "position 2 (max): value 0: 0 vs -0 (the sign of zero)", "tie-returns-other", 2, "[2] 0 2",
               "[2] -0 2");
  EXPECT_EQ(verdict.differences.size(), 2u) << verdict.why;
  EXPECT_EQ(verdict.differenceClass, 0u) << "a signed zero";
  expectCaught(forwardOracle<float>(kTieReturnsOther<float>, kTies), "position 2 (max)", "tie-returns-other", 2, "[2] 0 2",
               "[2] -0 2");
  EXPECT_TRUE(forwardOracle<double>(builtinEngine<double>("compiled"), kTies).holds);
  // Under an engine's unspecified sign of zero, or the `values` policy, ±0 are the same.
  EXPECT_TRUE(props::findProperty<double>("forward_oracle")
                  ->check(props::EngineUnderTest<double>(kTieReturnsOther<double>, props::Policy::values),
                          parseCase<double>(kTies).value())
                  .holds);
  EXPECT_TRUE(forwardOracle<Rational>(kTieReturnsOther<Rational>, kTies).holds) << "no sign of zero on rationals";
}

TEST(ForwardOracleCatches, AMeanDividedWrongly) {
  expectCaught(forwardOracle<Rational>(kMeanUndivided<Rational>, kMean), "position 1 (mean): value 0: 10 vs 5/2",
               "mean-undivided", 1, "[] 10", "[] 5/2");
  expectCaught(forwardOracle<double>(kMeanUndivided<double>, kMean), "position 1 (mean): value 0: 10 vs 2.5",
               "mean-undivided", 1, "[] 10", "[] 2.5");
  expectCaught(forwardOracle<RationalNoEq>(kMeanUndivided<RationalNoEq>, kMean), "position 1 (mean)", "mean-undivided", 1,
               "[] 10", "[] 5/2");
}

TEST(ForwardOracleCatches, AConcatenationInTheWrongOrder) {
  expectCaught(forwardOracle<Rational>(kConcatSwapped<Rational>, kConcat), "position 2 (concat0): value 0: 3 vs 1",
               "concat0-swapped", 2, "[3, 2] 3 4 5 6 1 2", "[3, 2] 1 2 3 4 5 6");
}

// On intervals, where the transcendental ops are compared: the misplaced parenthesis gives another
// real number, whose enclosure the naive one does not meet.
TEST(ForwardOracleCatches, ALogSoftmaxWithAMisplacedParenthesis) {
  props::Verdict verdict = forwardOracle<Interval>(kLogSoftmaxMisgrouped, kLogSoftmax);
  EXPECT_FALSE(verdict.holds);
  EXPECT_NE(verdict.why.find("position 1 (log_softmax_last): value 0: "), std::string::npos) << verdict.why;
  EXPECT_TRUE(forwardOracle<Interval>(builtinEngine<Interval>("compiled"), kLogSoftmax).holds);
}

// On generated cases too: each wrong forward is found, and shrinks to a case holding its op.
TEST(ForwardOracleCatches, EveryWrongForwardOnGeneratedCases) {
  const props::NamedProperty<Rational>& property = *props::findProperty<Rational>("forward_oracle");
  for (const auto* engine : {&kTransposePermuted<Rational>, &kGatherOffByOne<Rational>, &kMeanUndivided<Rational>,
                             &kConcatSwapped<Rational>}) {
    props::PropertyRun run = props::runProperty(property, *engine, props::RunSettings{300, 1});
    ASSERT_TRUE(run.failure) << engine->name() << ": not caught in 300 cases";
    EXPECT_LE(run.failure->shrunk["nodes"].size(), 3u) << engine->name() << ": " << run.failure->shrunk.dump();
  }
}

// ---- Opaque programs are left out, never passed silently -------------------------------------------

const std::string kOpaqueOnly = R"({"tapecheck": 1, "inputs": [{"shape": [2]}], "values": [["1", "2"]],
    "nodes": [{"op": "opaque", "args": [0], "attrs": {"name": "twice"}}]})";
const std::string kOpaqueThenMean = R"({"tapecheck": 1, "inputs": [{"shape": [2]}], "values": [["1", "2"]],
    "nodes": [{"op": "opaque", "args": [0], "attrs": {"name": "twice"}}, {"op": "mean", "args": [1]}]})";

TEST(ForwardOracleOpaque, AGraphOfOpaqueProgramsOnlyIsSkippedAndTheNodesAfterOneAreCompared) {
  props::Verdict only = forwardOracle<Rational>(builtinEngine<Rational>("compiled"), kOpaqueOnly);
  EXPECT_TRUE(only.holds);
  EXPECT_EQ(only.skipped, "only opaque programs, which have no naive definition");
  const auto& property = *props::findProperty<Rational>("forward_oracle");
  EXPECT_FALSE(props::appliesToGraph(property, parseCase<Rational>(kOpaqueOnly).value().graph));
  props::Verdict after = forwardOracle<Rational>(builtinEngine<Rational>("compiled"), kOpaqueThenMean);
  EXPECT_TRUE(after.holds && after.skipped.empty()) << after.why << after.skipped;
  expectCaught(forwardOracle<Rational>(kMeanUndivided<Rational>, kOpaqueThenMean), "position 2 (mean): value 0: 6 vs 3",
               "mean-undivided", 2, "[] 6", "[] 3");
}

}  // namespace
}  // namespace tc
