// The accuracy oracle: one IEEE value judged against an enclosure of the exact value, and the
// property on whole cases, with the reference engine (which must pass) and engines whose forward
// value at one node is planted off by a chosen amount (which must fail only beyond the budget).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/io/case_file.h"
#include "properties/accuracy.h"
#include "properties/all.h"
#include "properties/engine.h"
#include "tests/properties/rewritten_context_engine.h"

namespace tc {
namespace {

constexpr props::IeeeFormat kDouble = props::ieeeFormatOf<double>();

Interval exactly(double v) { return Interval(Mpfi(v)); }
Interval third() { return Interval(Mpfi(1) / Mpfi(3)); }

TEST(JudgeElement, CorrectlyRoundedIsWithinHalfAnUlpAndTheNextValueIsNot) {
  const double rounded = 1.0 / 3.0;
  auto judged = props::judgeElement(rounded, third(), kDouble, 0.5, nullptr);
  EXPECT_TRUE(judged.within);
  EXPECT_LE(judged.ulps, 0.5);
  EXPECT_GT(judged.ulps, 0.25);  // 1/3 lies a third of an ulp from its rounding, not at it
  const double next = std::nextafter(rounded, 1.0);
  auto off = props::judgeElement(next, third(), kDouble, 0.5, nullptr);
  EXPECT_FALSE(off.within);
  EXPECT_GT(off.ulps, 0.5);
  EXPECT_LT(off.ulps, 1.0);
  EXPECT_TRUE(props::judgeElement(next, third(), kDouble, 2, nullptr).within);
}

TEST(JudgeElement, AccumulatedErrorWidensTheBudgetByItsUpperEnd) {
  // 1 away from 0: outside 0.5 ulp of 0 (a subnormal ulp), inside 0.5 ulp + [1, 1].
  EXPECT_FALSE(props::judgeElement(1.0, exactly(0), kDouble, 0.5, nullptr).within);
  const Interval one = exactly(1);
  EXPECT_TRUE(props::judgeElement(1.0, exactly(0), kDouble, 0.5, &one).within);
  const Interval almost = Interval(Mpfi(0.99));
  EXPECT_FALSE(props::judgeElement(1.0, exactly(0), kDouble, 0, &almost).within);
}

TEST(JudgeElement, InfinityIsExactOnlyAtOrBeyondTheOverflowThreshold) {
  const double inf = std::numeric_limits<double>::infinity();
  const Interval beyond(Mpfi(std::ldexp(1.0, 1000)) * Mpfi(std::ldexp(1.0, 100)));  // 2^1100
  EXPECT_TRUE(props::judgeElement(inf, beyond, kDouble, 0.5, nullptr).within);
  EXPECT_FALSE(props::judgeElement(-inf, beyond, kDouble, 0.5, nullptr).within);
  EXPECT_FALSE(props::judgeElement(inf, exactly(1000), kDouble, 2, nullptr).within);
  // DBL_MAX + 3/4 ulp rounds to inf: 1/4 ulp from 2^1024, within half an ulp.
  const Interval aboveMax(Mpfi(std::numeric_limits<double>::max()) + Mpfi(std::ldexp(0.75, 971)));
  EXPECT_TRUE(props::judgeElement(inf, aboveMax, kDouble, 0.5, nullptr).within);
  EXPECT_FALSE(props::judgeElement(std::numeric_limits<double>::max(), aboveMax, kDouble, 0.5, nullptr).within);
}

TEST(JudgeElement, NanFailsWhereAnExactValueExists) {
  auto judged = props::judgeElement(std::nan(""), exactly(1), kDouble, 1e6, nullptr);
  EXPECT_FALSE(judged.within);
  EXPECT_TRUE(std::isinf(judged.ulps));
}

TEST(JudgeElement, SubnormalUlpIsTheSmallestSubnormal) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  auto judged = props::judgeElement(2 * tiny, exactly(3 * tiny), kDouble, 0.5, nullptr);
  EXPECT_FALSE(judged.within);
  EXPECT_DOUBLE_EQ(judged.ulps, 1.0);
  EXPECT_TRUE(props::judgeElement(2 * tiny, exactly(3 * tiny), kDouble, 1, nullptr).within);
}

Case<double> caseOf(const std::string& text) {
  auto c = parseCase<double>(text);
  EXPECT_TRUE(c.has_value()) << (c ? "" : c.error().message);
  return *c;
}

const Case<double>& sigmoidCase() {
  static const Case<double> c = caseOf(R"({"tapecheck": 1, "inputs": [{"shape": [3]}],
    "nodes": [{"op": "sigmoid", "args": [0]}], "values": [["-720", "0.1", "3"]]})");
  return c;
}

// The node's value at element i moved by `steps` representable values (or set to `value`).
testing::RewrittenContextEngine plantedAt(std::size_t position, std::size_t i, int steps,
                                          std::optional<double> value = std::nullopt) {
  return testing::RewrittenContextEngine("planted", [=](const Graph<double>&, Context<double>& context) {
    double& v = context[position][i];
    if (value) v = *value;
    for (int s = 0; s < std::abs(steps); ++s) v = std::nextafter(v, steps > 0 ? INFINITY : -INFINITY);
  });
}

TEST(AccuracyProperty, TheReferencePassesAndReportsEachOpsWorstDistance) {
  const auto& reference = builtinEngine<double>("reference");
  props::Verdict verdict = props::accuracy<double>(reference, sigmoidCase());
  EXPECT_TRUE(verdict.holds) << verdict.why;
  ASSERT_TRUE(verdict.measures.contains("sigmoid"));
  EXPECT_LE(verdict.measures.at("sigmoid").value, 8);
  EXPECT_GT(verdict.measures.at("sigmoid").ofLimit, 0);
}

TEST(AccuracyProperty, TheNaiveSigmoidsZeroFailsAndIsBlamedOnTheNode) {
  props::Verdict verdict = props::accuracy<double>(plantedAt(1, 0, 0, 0.0), sigmoidCase());
  ASSERT_FALSE(verdict.holds);
  EXPECT_NE(verdict.why.find("node 1 (sigmoid), element 0: planted computes 0"), std::string::npos) << verdict.why;
  EXPECT_EQ(verdict.blamed, std::set<std::size_t>{1});
  ASSERT_EQ(verdict.differences.size(), 1u);
  EXPECT_EQ(verdict.differences[0].position, 1u);
}

TEST(AccuracyProperty, AFewUlpOffPassWithinTheBudgetAndFailBeyondIt) {
  // sigmoid(0.1)'s budget is 8 ulp: 4 steps stay within, 12 do not.
  EXPECT_TRUE(props::accuracy<double>(plantedAt(1, 1, 4), sigmoidCase()).holds);
  EXPECT_FALSE(props::accuracy<double>(plantedAt(1, 1, 12), sigmoidCase()).holds);
  // add is correctly rounded: one step off fails.
  const Case<double> add = caseOf(R"({"tapecheck": 1, "inputs": [{"shape": [1]}, {"shape": [1]}],
    "nodes": [{"op": "add", "args": [0, 1]}], "values": [["0.1"], ["0.2"]]})");
  EXPECT_TRUE(props::accuracy<double>(builtinEngine<double>("reference"), add).holds);
  EXPECT_FALSE(props::accuracy<double>(plantedAt(2, 0, 1), add).holds);
}

TEST(AccuracyProperty, ASumIsJudgedByItsErrorBoundNotInUlps) {
  // 1e16 + 1 − 1e16 is 0 or 2 in double (1e16 + 1 rounds), while the exact sum is 1: far in ulps of
  // 1, well within γ_3·(2·10^16 + 1) ≈ 6.7.
  const Case<double> sum = caseOf(R"({"tapecheck": 1, "inputs": [{"shape": [3]}],
    "nodes": [{"op": "sum", "args": [0]}], "values": [["1e16", "1", "-1e16"]]})");
  props::Verdict verdict = props::accuracy<double>(builtinEngine<double>("reference"), sum);
  EXPECT_TRUE(verdict.holds) << verdict.why;
  EXPECT_GE(verdict.measures.at("sum").value, 1e15);
  EXPECT_FALSE(props::accuracy<double>(plantedAt(1, 0, 0, 8.0), sum).holds);
}

TEST(AccuracyProperty, NodesWithoutAnExactValueAreNotJudged) {
  // log(−1) has no value: the case fails its domain check, and the forward never runs.
  const Case<double> log = caseOf(R"({"tapecheck": 1, "inputs": [{"shape": [1]}],
    "nodes": [{"op": "log", "args": [0]}], "values": [["-1"]]})");
  EXPECT_FALSE(props::accuracy<double>(builtinEngine<double>("reference"), log).skipped.empty());
  // exp(inf)'s argument is not finite: nothing to judge.
  const Case<double> inf = caseOf(R"({"tapecheck": 1, "inputs": [{"shape": [1]}],
    "nodes": [{"op": "exp", "args": [0]}], "values": [["inf"]]})");
  props::Verdict verdict = props::accuracy<double>(builtinEngine<double>("reference"), inf);
  EXPECT_TRUE(verdict.holds);
  EXPECT_NE(verdict.skipped.find("NaN or infinite"), std::string::npos) << verdict.skipped;
}

TEST(AccuracyProperty, IsListedOnIeeeCarriersOnly) {
  auto has = [](const auto& properties) {
    return std::any_of(properties.begin(), properties.end(), [](const auto& p) { return p.name == "accuracy"; });
  };
  EXPECT_TRUE(has(props::propertiesFor<double>()));
  EXPECT_TRUE(has(props::propertiesFor<float>()));
  EXPECT_FALSE(has(props::propertiesFor<Rational>()));
  EXPECT_FALSE(has(props::propertiesFor<Interval>()));
}

}  // namespace
}  // namespace tc
