// core/graph/cost.h: the estimate a command's budget judges before anything runs (what each
// op's work counts, the literal dense order's quadratic additions, memory per carrier, sizes of
// exact numbers by their degree), where it stops, and how it names the node; and the size
// ceiling exact arithmetic keeps while running (docs/semantics.md §1.10; docs/budget.md).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/builder.h"
#include "core/carriers/interval.h"
#include "core/graph/cost.h"
#include "core/ops/kernels.h"
#include "core/runtime/compiled.h"
#include "core/spec/reference.h"

namespace tc {
namespace {

template <class T>
Tensor<T> filled(const Shape& shape, int value) {
  return Tensor<T>::filled(shape, Carrier<T>::fromInt(value));
}

// A budget with one finite limit.
Budget workBudget(double work) { return Budget{work, 1e30}; }
Budget memoryBudget(double bytes) { return Budget{1e30, bytes}; }

const PassCounts kForwardOnly{.forward = 1, .backward = 0, .copies = 1};
// docs/budget.md: an IEEE operation costs 0.25 ns, a visit of the dense order to an
// earlier position 5 ns besides its elements' additions.
constexpr double kIeee = 0.25;
constexpr double kVisit = 5;
// docs/budget.md: the accuracy oracle's MPFI operation, a product added to an exact sum, and
// its judging of one element.
constexpr double kEnclosed = 400;
constexpr double kExactFold = 5;
constexpr double kJudged = 4000;

// The kernels' nanoseconds for an [m, depth] × [depth, n] product of doubles (the model itself is
// tested in tests/core/ops/kernels_test.cpp).
double productNs(std::size_t m, std::size_t depth, std::size_t n, std::size_t valueBytes = sizeof(double)) {
  return kernels::ieeeProductNs(m, depth, n, valueBytes);
}
// A matrix product [m, k]·[k, n]'s terms: ct·bᵀ after copying bᵀ, and aᵀ·ct.
double matmulTermsNs(std::size_t m, std::size_t k, std::size_t n, std::size_t valueBytes = sizeof(double)) {
  return productNs(m, n, k, valueBytes) + static_cast<double>(k * n) * kIeee + productNs(k, m, n, valueBytes);
}

TEST(WorkEstimate, AMatrixProductCountsItsProductsAtTheSpeedOfTheKernels) {
  auto b = *GraphBuilder<double>::create({{30, 40}, {40, 50}});
  b.add(OpKind::matmul, {0, 1}).value();
  Graph<double> g = std::move(b).build();
  const Pack<double> inputs{filled<double>({30, 40}, 1), filled<double>({40, 50}, 1)};
  // The forward's product is the only work of a forward pass.
  const double forward = productNs(30, 40, 50);
  auto excess = exceedsBudget(g, &inputs, {}, kForwardOnly, workBudget(0.999 * forward));
  ASSERT_TRUE(excess);
  EXPECT_EQ(excess->limit, BudgetExcess::Limit::work);
  EXPECT_EQ(excess->position, 2u);
  EXPECT_DOUBLE_EQ(excess->estimate, forward);
  EXPECT_FALSE(exceedsBudget(g, &inputs, {}, kForwardOnly, workBudget(1.001 * forward)));
  // A reverse pass adds the terms' two products.
  EXPECT_DOUBLE_EQ(
      exceedsBudget(g, &inputs, {}, PassCounts{.forward = 1, .backward = 1, .copies = 1}, workBudget(1))->estimate,
      forward + matmulTermsNs(30, 40, 50));
}

TEST(WorkEstimate, AForwardPassCountsTheForwardsProductAlone) {
  // [4, 256]·[256, 64] folds in tiles at depth 256; of its terms, aᵀ·ct ([256, 4]·[4, 64]) folds only
  // 4 steps for each output it writes: its terms cost about twice as much an operation.
  auto b = *GraphBuilder<double>::create({{4, 256}, {256, 64}});
  b.add(OpKind::matmul, {0, 1}).value();
  Graph<double> g = std::move(b).build();
  const Pack<double> inputs{filled<double>({4, 256}, 1), filled<double>({256, 64}, 1)};
  EXPECT_DOUBLE_EQ(exceedsBudget(g, &inputs, {}, kForwardOnly, workBudget(1))->estimate, productNs(4, 256, 64));
  EXPECT_GT(matmulTermsNs(4, 256, 64) / 2, 1.5 * productNs(4, 256, 64));
  // ct·bᵀ: [4, 64]·[64, 256] after copying bᵀ's 256 · 64 values; aᵀ·ct: [256, 4]·[4, 64].
  EXPECT_DOUBLE_EQ(
      exceedsBudget(g, &inputs, {}, PassCounts{.forward = 0, .backward = 1, .copies = 1}, workBudget(1))->estimate,
      productNs(4, 64, 256) + 256 * 64 * kIeee + productNs(256, 4, 64));
  // A vector b: the forward folds row by row, the terms are an outer product and aᵀ·ct, [2, 8]·[8, 1].
  auto v = *GraphBuilder<double>::create({{8, 2}, {2}});
  v.add(OpKind::matmul, {0, 1}).value();
  Graph<double> byVector = std::move(v).build();
  const Pack<double> vectorInputs{filled<double>({8, 2}, 1), filled<double>({2}, 1)};
  EXPECT_DOUBLE_EQ(exceedsBudget(byVector, &vectorInputs, {}, kForwardOnly, workBudget(1))->estimate, 16 * kIeee);
  EXPECT_DOUBLE_EQ(exceedsBudget(byVector, &vectorInputs, {}, PassCounts{.forward = 0, .backward = 1, .copies = 1},
                                 workBudget(1))
                       ->estimate,
                   16 * kIeee + productNs(2, 8, 1));
}

TEST(WorkEstimate, AFloatProductFoldsInFloatLanes) {
  // Four columns are a vector of doubles but half a vector of floats: one output at a time.
  auto b = *GraphBuilder<float>::create({{64, 64}, {64, 4}});
  b.add(OpKind::matmul, {0, 1}).value();
  Graph<float> g = std::move(b).build();
  const Pack<float> inputs{filled<float>({64, 64}, 1), filled<float>({64, 4}, 1)};
  EXPECT_DOUBLE_EQ(exceedsBudget(g, &inputs, {}, kForwardOnly, workBudget(1))->estimate, productNs(64, 64, 4, 4));
  EXPECT_GT(productNs(64, 64, 4, 4), 1.5 * productNs(64, 64, 4, 8));
  // The accuracy oracle folds small integers in double: in doubles' lanes.
  const double judged = (64.0 * 64 + 64.0 * 4 + 64.0 * 4) * kJudged;
  EXPECT_DOUBLE_EQ(exceedsBudget(g, &inputs, {}, PassCounts{.forward = 0, .backward = 0, .copies = 1, .ownValues = {1}},
                                 workBudget(1))
                       ->estimate,
                   productNs(64, 64, 4, 8) + matmulTermsNs(64, 64, 4, 8) + judged);
}

TEST(WorkEstimate, TheDenseOrderAddsToEveryEarlierPosition) {
  // A chain of n negations of a [4] input: the k-th node adds to the 4·k elements before it.
  const std::size_t n = 100;
  auto b = *GraphBuilder<double>::create({{4}});
  for (std::size_t k = 0; k < n; ++k) b.add(OpKind::neg, {k}).value();
  Graph<double> g = std::move(b).build();
  const Pack<double> inputs{filled<double>({4}, 1)};
  const double forward = 8.0 * n * kIeee;  // each neg reads and writes 4 elements
  const double dense = (kVisit + 4 * kIeee) * n * (n + 1) / 2;  // node k (k = 1..n) visits k positions of 4
  PassCounts denseOnly{.forward = 0, .backward = 0, .dense = 1, .copies = 1};
  auto early = exceedsBudget(g, &inputs, {}, denseOnly, workBudget(0.5));
  EXPECT_EQ(early->position, 1u);
  EXPECT_EQ(early->whole, dense);  // the whole case's estimate beside the first node over the budget
  EXPECT_FALSE(exceedsBudget(g, &inputs, {}, denseOnly, workBudget(dense)));
  auto both = exceedsBudget(g, &inputs, {}, PassCounts{.forward = 1, .backward = 0, .dense = 1, .copies = 1},
                            workBudget(forward + dense - 1));
  ASSERT_TRUE(both);
  EXPECT_EQ(both->position, n);  // the last node
  EXPECT_EQ(both->estimate, forward + dense);
}

TEST(WorkEstimate, BookkeepingCountsEveryElementOfEveryPosition) {
  auto b = *GraphBuilder<double>::create({{1000}});
  b.add(OpKind::neg, {0}).value();
  Graph<double> g = std::move(b).build();
  const Pack<double> inputs{filled<double>({1000}, 1)};
  PassCounts bookkeeping{.forward = 0, .backward = 0, .copies = 1, .perElement = 500};
  auto excess = exceedsBudget(g, &inputs, {}, bookkeeping, workBudget(1000.0 * 500 + 1));
  ASSERT_TRUE(excess);
  EXPECT_EQ(excess->position, 1u);
  EXPECT_EQ(excess->estimate, 2000.0 * 500);
}

TEST(WorkEstimate, AnOpaqueProgramAddsToEveryEarlierPositionOnEveryReversePass) {
  // twice on a [4] input, 10 times: node k's program writes all 4·k earlier elements.
  auto b = *GraphBuilder<double>::create({{4}});
  for (std::size_t k = 0; k < 10; ++k) ASSERT_TRUE(b.addOpaque("twice", {k}));
  Graph<double> g = std::move(b).build();
  const Pack<double> inputs{filled<double>({4}, 1)};
  auto forwardOnly =
      exceedsBudget(g, &inputs, {}, PassCounts{.forward = 1, .backward = 0, .copies = 1}, workBudget(0))->estimate;
  auto oneReverse =
      exceedsBudget(g, &inputs, {}, PassCounts{.forward = 1, .backward = 1, .copies = 1}, workBudget(0))->estimate;
  EXPECT_EQ(forwardOnly, 8 * kIeee);  // node 1 alone: 4 reads, 4 writes
  EXPECT_EQ(oneReverse, 8 * kIeee * 3 + 2 * (kVisit + 4 * kIeee));  // and the program's contribution to input 0
}

TEST(WorkEstimate, EveryPropertyRunHandlesEveryPositionBesidesItsElements) {
  // 1,000 scalar inputs and one addition: what costs is each position's tensor, not its one element.
  std::vector<Shape> scalars(1000, Shape{});
  auto b = *GraphBuilder<double>::create(scalars);
  b.add(OpKind::add, {0, 1}).value();
  Graph<double> g = std::move(b).build();
  const Pack<double> inputs(1000, filled<double>({}, 1));
  const PassCounts nothing{.forward = 0, .backward = 0, .copies = 1};
  PassCounts twoRuns = nothing;
  twoRuns.propertyRuns = 2;
  // docs/budget.md: 350 ns a position and run, and 2.5 of the carrier's operations.
  EXPECT_DOUBLE_EQ(estimatedWork(g, &inputs, {}, twoRuns), 1001 * 2 * (350 + 2.5 * kIeee));
  // A case file written and read back: 700 ns a position's entry.
  PassCounts written = nothing;
  written.documentRoundTrips = 3;
  EXPECT_DOUBLE_EQ(estimatedWork(g, &inputs, {}, written), 1001 * 3 * 700.0);
  EXPECT_DOUBLE_EQ(estimatedWork(g, &inputs, {}, nothing), 0);
}

// A [2] input beside a data tensor of 4,096 values and an index list of 1,000 entries that no node
// reads: the data, not the positions, is what costs.
struct BesideData {
  Graph<double> g =
      (*GraphBuilder<double>::create({{2}}, DataSchema{{{"m", {4096}}}, {{"rows", std::vector<std::size_t>(1000, 0)}}}))
          .build();
  Pack<double> inputs{filled<double>({2}, 1)};
  Data<double> data{{"m", filled<double>({4096}, 1)}};
};

TEST(WorkEstimate, TheDataIsCopiedByEveryRunWrittenByEveryRoundTripAndLiftedByTheAccuracyOracle) {
  const auto [g, inputs, data] = BesideData{};
  const PassCounts nothing{.forward = 0, .backward = 0, .copies = 0};
  PassCounts runs = nothing;
  runs.propertyRuns = 5;
  EXPECT_DOUBLE_EQ(estimatedWork(g, &inputs, data, runs), 4096 * 5 * kIeee + 5 * (350 + 2.5 * kIeee));
  // Written and read back: 210 ns a double, 180 an index entry, 700 the input's entry.
  PassCounts written = nothing;
  written.documentRoundTrips = 2;
  EXPECT_DOUBLE_EQ(estimatedWork(g, &inputs, data, written), 2 * (4096 * 210.0 + 1000 * 180.0 + 700));
  // Lifted to intervals on every run of the accuracy oracle: 150 ns a value.
  PassCounts accuracy = nothing;
  accuracy.ownValues = {1};
  accuracy.drawnValues = {3};
  EXPECT_DOUBLE_EQ(estimatedWork(g, &inputs, data, accuracy), 4 * 4096 * 150.0);
  // Values of a carrier that are costly to read: 1.2 µs a rational, more as the leaves grow.
  auto rb = *GraphBuilder<Rational>::create({{2}}, DataSchema{{{"m", {4096}}}, {}});
  Graph<Rational> rg = std::move(rb).build();
  const Pack<Rational> rationalInputs{filled<Rational>({2}, 1)};
  const Data<Rational> rationalData{{"m", filled<Rational>({4096}, 1)}};
  PassCounts once = nothing;
  once.documentRoundTrips = 1;
  const double rationalOperation = 100 + 0.5;  // exactOperationCost of one limb, docs/budget.md
  EXPECT_DOUBLE_EQ(estimatedWork(rg, &rationalInputs, rationalData, once),
                   4096 * 1200 * rationalOperation / 100 + 700);
}

TEST(MemoryEstimate, TheDataIsHeldOnceTwiceWhilePropertiesRunAndAsTextWhileItIsWritten) {
  const auto [g, inputs, data] = BesideData{};
  const PassCounts fourCopies{.forward = 0, .backward = 0, .copies = 4};
  const double input = 4 * 2 * 8.0;  // the input's four copies
  const double once = 4096 * 8.0 + 1000 * 8.0;
  EXPECT_EQ(exceedsBudget(g, &inputs, data, fourCopies, memoryBudget(1))->whole, once + input);
  PassCounts runs = fourCopies;
  runs.propertyRuns = 10;  // the case's, and the draw's a property runs on
  EXPECT_EQ(exceedsBudget(g, &inputs, data, runs, memoryBudget(1))->whole, 2 * once + input);
  PassCounts written = fourCopies;
  written.documentRoundTrips = 1;
  EXPECT_EQ(exceedsBudget(g, &inputs, data, written, memoryBudget(1))->whole, once + input + 5096 * 300.0);
}

// Only the accuracy oracle's runs, on the case's own values and on draws.
PassCounts accuracyOnly(EnclosurePasses own, EnclosurePasses drawn = {}) {
  return PassCounts{.forward = 0, .backward = 0, .copies = 1, .ownValues = own, .drawnValues = drawn};
}

TEST(WorkEstimate, TheAccuracyOracleFoldsProductsAsExactSumsUnlessTheyAreExactInDouble) {
  auto b = *GraphBuilder<double>::create({{30, 40}, {40, 50}});
  b.add(OpKind::matmul, {0, 1}).value();
  Graph<double> g = std::move(b).build();
  const double macs = 30.0 * 40 * 50;
  const double judged = (30.0 * 40 + 40.0 * 50 + 30.0 * 50) * kJudged;  // the arguments' gradients and the output
  const double inDouble = productNs(30, 40, 50) + matmulTermsNs(30, 40, 50);  // the forward and the terms
  // Values with long significands: every multiply-add of the forward and both terms added to an
  // exact sum (matmul's folds all run in the kernels, ops::foldedShare).
  const Pack<double> wide{Tensor<double>::filled({30, 40}, 0.1), Tensor<double>::filled({40, 50}, 0.3)};
  EXPECT_EQ(exceedsBudget(g, &wide, {}, accuracyOnly({1}), workBudget(1))->estimate, 3 * macs * kExactFold + judged);
  // Small integers: the folds run in double (kernels::foldIsExactInDouble).
  const Pack<double> small{filled<double>({30, 40}, 3), filled<double>({40, 50}, -8)};
  EXPECT_DOUBLE_EQ(exceedsBudget(g, &small, {}, accuracyOnly({1}), workBudget(1))->estimate, inDouble + judged);
  // A graph-only file's values are unknown: counted as wide.
  EXPECT_EQ(exceedsBudget(g, static_cast<const Pack<double>*>(nullptr), {}, accuracyOnly({1}), workBudget(1))->estimate,
            3 * macs * kExactFold + judged);
  // Draws promised short are folded in double, whatever the file's own values; a second run judges
  // each element at a tenth of the first's cost (the oracle's memory is touched already).
  EXPECT_DOUBLE_EQ(exceedsBudget(g, &wide, {}, accuracyOnly({}, {2, 1, true}), workBudget(1))->estimate,
                   2 * inDouble + judged + judged / 10);
  EXPECT_DOUBLE_EQ(exceedsBudget(g, &wide, {}, accuracyOnly({1}, {1, 1, true}), workBudget(1))->estimate,
                   3 * macs * kExactFold + judged + inDouble + judged / 10);
  // A product of products reads values that are not leaves: as exact sums again.
  auto c = *GraphBuilder<double>::create({{30, 40}, {40, 50}, {50, 50}});
  c.add(OpKind::matmul, {0, 1}).value();
  c.add(OpKind::matmul, {3, 2}).value();
  Graph<double> chained = std::move(c).build();
  const Pack<double> smallThree{filled<double>({30, 40}, 3), filled<double>({40, 50}, -8), filled<double>({50, 50}, 1)};
  const double second = 3 * (30.0 * 50 * 50) * kExactFold + (30.0 * 50 + 50.0 * 50 + 30.0 * 50) * kJudged;
  auto total = exceedsBudget(chained, &smallThree, {}, accuracyOnly({1}), workBudget(1.001 * (inDouble + judged)));
  ASSERT_TRUE(total);
  EXPECT_EQ(total->position, 4u);
  EXPECT_DOUBLE_EQ(total->estimate, inDouble + judged + second);
  // A linear layer's term of W is an outer product on MPFI intervals: a third of its enclosure.
  auto l = *GraphBuilder<double>::create({{30, 40}, {40}, {30}});
  l.add(OpKind::linear, {0, 1, 2}).value();
  Graph<double> layer = std::move(l).build();
  const Pack<double> wideLayer{Tensor<double>::filled({30, 40}, 0.1), Tensor<double>::filled({40}, 0.3),
                               Tensor<double>::filled({30}, 0.7)};
  const double layerOps = 30.0 * 40 + 30;
  const double layerJudged = (30.0 * 40 + 40 + 30 + 30) * kJudged;
  EXPECT_DOUBLE_EQ(exceedsBudget(layer, &wideLayer, {}, accuracyOnly({1}), workBudget(1))->estimate,
                   3 * layerOps * (2.0 / 3 * kExactFold + 1.0 / 3 * kEnclosed) + layerJudged);
}

TEST(WorkEstimate, ADrawIsJudgedWholeWhereEveryArgumentElementIsFinite) {
  auto b = *GraphBuilder<double>::create({{1000}});
  b.add(OpKind::sum, {0}).value();
  Graph<double> g = std::move(b).build();
  const Pack<double> inputs{filled<double>({1000}, 1)};
  const double oneRun = 3 * 1001 * kEnclosed + 1001 * kJudged;  // sum reads 1000 elements and writes one
  EXPECT_EQ(exceedsBudget(g, &inputs, {}, accuracyOnly({}, {1, 1, false}), workBudget(1))->estimate, oneRun);
  // With one element in a hundred not finite, 1000 arguments are all finite in 0.99^1000 of the draws.
  EXPECT_DOUBLE_EQ(exceedsBudget(g, &inputs, {}, accuracyOnly({}, {1, 0.99, false}), workBudget(0))->estimate,
                   std::pow(0.99, 1000) * oneRun);
}

TEST(WorkEstimate, APointwiseOpsDrawIsJudgedOnTheElementsWhoseArgumentsAreFinite) {
  auto b = *GraphBuilder<double>::create({{1000}, {1000}});
  b.add(OpKind::mul, {0, 1}).value();
  Graph<double> g = std::move(b).build();
  const Pack<double> inputs{filled<double>({1000}, 1), filled<double>({1000}, 2)};
  const double operations = 3000;  // mul reads 2000 elements and writes 1000
  const double whole = 3 * operations * kEnclosed + 3000 * kJudged;
  EXPECT_EQ(exceedsBudget(g, &inputs, {}, accuracyOnly({}, {1, 1, false}), workBudget(1))->estimate, whole);
  // Otherwise its forward alone, on the 0.99^2 of its elements whose two arguments are finite.
  const double all = std::pow(0.99, 2000);
  EXPECT_DOUBLE_EQ(exceedsBudget(g, &inputs, {}, accuracyOnly({}, {1, 0.99, false}), workBudget(0))->estimate,
                   all * whole + (1 - all) * 0.99 * 0.99 * (operations * kEnclosed + 1000 * kJudged));
}

TEST(WorkEstimate, AnIntervalOperationCostsWhatMpfiTakesUnlessItFoldsInputsHoldingDoubles) {
  auto b = *GraphBuilder<Interval>::create({{30, 40}, {40, 50}});
  b.add(OpKind::matmul, {0, 1}).value();
  Graph<Interval> g = std::move(b).build();
  const double macs = 30.0 * 40 * 50;
  const PassCounts forwardAndBackward{.forward = 1, .backward = 1, .copies = 1};
  auto estimate = [&](const Pack<Interval>& inputs, const PassCounts& passes) {
    return exceedsBudget(g, &inputs, {}, passes, workBudget(1))->estimate;
  };
  // 1/3 is no double: MPFI's operations, forward and terms.
  const Interval third = Carrier<Interval>::fromInt(1) / Carrier<Interval>::fromInt(3);
  const Pack<Interval> thirds{Tensor<Interval>::filled({30, 40}, third), filled<Interval>({40, 50}, 1)};
  EXPECT_EQ(estimate(thirds, forwardAndBackward), macs * kEnclosed * 3);
  // Small integers: the forward folds in double, in the kernels' tiles; the terms (their cotangent
  // unknown) as exact sums.
  const Pack<Interval> small{filled<Interval>({30, 40}, 1), filled<Interval>({40, 50}, -8)};
  EXPECT_DOUBLE_EQ(estimate(small, kForwardOnly), productNs(30, 40, 50));
  EXPECT_DOUBLE_EQ(estimate(small, forwardAndBackward), productNs(30, 40, 50) + 2 * macs * kExactFold);
  // Doubles with long significands: exact sums.
  const Pack<Interval> wide{Tensor<Interval>::filled({30, 40}, Carrier<Interval>::fromDouble(0.1)),
                            filled<Interval>({40, 50}, 3)};
  EXPECT_EQ(estimate(wide, kForwardOnly), macs * kExactFold);
}

TEST(SizeEstimate, ConstantsAreLeavesToo) {
  // A const holding a 60,001-bit integer, negated: no input is large, the constant is.
  const Rational large(Integer(1) << 60000);
  auto b = *GraphBuilder<Rational>::create({{}});
  Attrs<Rational> constant;
  constant.shape = Shape{};
  constant.values = {large};
  b.add(OpKind::constant, {}, constant).value();
  for (std::size_t k = 1; k < 6; ++k) b.add(OpKind::square, {k}).value();  // 2^5 · 60002 bits at node 6
  Graph<Rational> g = std::move(b).build();
  const Pack<Rational> small{Tensor<Rational>({}, {Rational(1)})};
  auto excess = exceedsBudget(g, &small, {}, kForwardOnly, Budget{});
  ASSERT_TRUE(excess);
  EXPECT_EQ(excess->limit, BudgetExcess::Limit::bits);
  EXPECT_EQ(excess->position, 4u);  // 2^3 · 60002 = 480016 bits
  // scale's c is a constant as well: each scale may multiply by it.
  auto s = *GraphBuilder<Rational>::create({{}});
  Attrs<Rational> byLarge;
  byLarge.c = large;
  for (std::size_t k = 0; k < 6; ++k) s.add(OpKind::scale, {k}, byLarge).value();
  Graph<Rational> scaled = std::move(s).build();
  EXPECT_EQ(exceedsBudget(scaled, &small, {}, kForwardOnly, Budget{})->position, 4u);  // degree 5
  // While running, the ceiling takes c into account before the node that would pass it.
  auto context = spec::eval(scaled, small, {});
  ASSERT_FALSE(context);
  EXPECT_EQ(context.error().message.substr(0, 43), "node 5 (scale): its values may need up to 3");
}

TEST(WorkEstimate, ExactRationalsCostMoreAsTheyGrow) {
  auto b = *GraphBuilder<Rational>::create({{16}});
  b.add(OpKind::neg, {0}).value();
  Graph<Rational> g = std::move(b).build();
  const Pack<Rational> small{filled<Rational>({16}, 3)};
  const Pack<Rational> large{Tensor<Rational>::filled({16}, Rational(Integer(1) << 60000))};
  auto smallCost = exceedsBudget(g, &small, {}, kForwardOnly, workBudget(1))->estimate;
  auto largeCost = exceedsBudget(g, &large, {}, kForwardOnly, workBudget(1))->estimate;
  EXPECT_GE(smallCost, 32 * 100.0);  // 32 operations of at least 100 ns on GMP
  EXPECT_GT(largeCost, 100 * smallCost);
}

// The accuracy oracle holds about four MPFI intervals (230 bytes each) per element of every
// position, once however many runs it makes; the interval carrier's own values are as large.
TEST(MemoryEstimate, TheAccuracyOraclesEnclosuresCount) {
  auto b = *GraphBuilder<double>::create({{1000}});
  b.add(OpKind::exp, {0}).value();
  Graph<double> g = std::move(b).build();
  const Pack<double> inputs{filled<double>({1000}, 1)};
  const double plain = 2000.0 * 8;  // one copy of each position's doubles
  EXPECT_EQ(exceedsBudget(g, &inputs, {}, accuracyOnly({}), memoryBudget(1))->whole, plain);
  EXPECT_EQ(exceedsBudget(g, &inputs, {}, accuracyOnly({1}, {5}), memoryBudget(1))->whole, plain + 2000.0 * 4 * 230);
  auto ib = *GraphBuilder<Interval>::create({{1000}});
  ib.add(OpKind::exp, {0}).value();
  Graph<Interval> ig = std::move(ib).build();
  const PassCounts oneCopy{.forward = 0, .backward = 0, .copies = 1};
  EXPECT_EQ(exceedsBudget(ig, static_cast<const Pack<Interval>*>(nullptr), {}, oneCopy, memoryBudget(1))->whole,
            2000.0 * 230);
}

TEST(MemoryEstimate, EveryPositionHoldsItsCopies) {
  auto b = *GraphBuilder<double>::create({{}});
  b.add(OpKind::broadcast, {0}, [] {
     Attrs<double> a;
     a.shape = Shape{1 << 20};
     return a;
   }()).value();
  Graph<double> g = std::move(b).build();
  const Pack<double> inputs{filled<double>({}, 1)};
  const PassCounts fourCopies{.forward = 1, .backward = 1, .copies = 4};
  const double bytes = (1.0 + (1 << 20)) * 8 * 4;  // a double per element, four copies
  EXPECT_FALSE(exceedsBudget(g, &inputs, {}, fourCopies, memoryBudget(bytes)));
  auto excess = exceedsBudget(g, &inputs, {}, fourCopies, memoryBudget(bytes - 1));
  ASSERT_TRUE(excess);
  EXPECT_EQ(excess->limit, BudgetExcess::Limit::memory);
  EXPECT_EQ(excess->position, 1u);
  EXPECT_EQ(describeExcess(g, *excess),
            "node 1 (broadcast): the estimated memory passes the budget of 32 MiB here and reaches 32.000031 MiB in "
            "all");  // one byte over: as many decimals as it takes to show it
  // Printed values add their text, and the time to print them.
  EXPECT_TRUE(exceedsBudget(g, &inputs, {}, PassCounts{.forward = 1, .backward = 1, .copies = 4, .printedValues = 1},
                            memoryBudget(bytes)));
  EXPECT_EQ(exceedsBudget(g, &inputs, {}, PassCounts{.forward = 0, .backward = 0, .copies = 1, .printedValues = 1},
                          workBudget(1))
                ->estimate,
            200.0 * (1 + (1 << 20)));
  // An interval prints two endpoints: more text, and longer to print.
  auto i = *GraphBuilder<Interval>::create({{}});
  i.add(OpKind::neg, {0}).value();
  Graph<Interval> negation = std::move(i).build();
  const Pack<Interval> point{filled<Interval>({}, 1)};
  const PassCounts printOnly{.forward = 0, .backward = 0, .copies = 0, .printedValues = 1};
  EXPECT_EQ(exceedsBudget(negation, &point, {}, printOnly, workBudget(1))->estimate, 700.0 * 2);
  EXPECT_EQ(exceedsBudget(negation, &point, {}, printOnly, memoryBudget(1))->estimate, 48.0 * 2);
}

// A chain of squares of 3/2 (4 bits: 2 for 3, 2 for 2): node k's values have degree 2^k.
template <class T>
Graph<T> squares(std::size_t n) {
  auto b = *GraphBuilder<T>::create({{}});
  for (std::size_t k = 0; k < n; ++k) b.add(OpKind::square, {k}).value();
  return std::move(b).build();
}

TEST(SizeEstimate, ExactValuesAreBoundedByTheirDegree) {
  Graph<Rational> g = squares<Rational>(30);
  const Pack<Rational> inputs{Tensor<Rational>({}, {Rational(3) / 2})};
  auto excess = exceedsBudget(g, &inputs, {}, kForwardOnly, Budget{});
  ASSERT_TRUE(excess);
  EXPECT_EQ(excess->limit, BudgetExcess::Limit::bits);
  EXPECT_EQ(excess->position, 17u);  // 2^17 · 4 bits first passes 2^18
  EXPECT_EQ(excess->estimate, 524288.0);
  EXPECT_EQ(describeExcess(g, *excess),
            "node 17 (square): its values may need about 524288 bits, more than the exact carriers' ceiling of 262144 bits");
  // IEEE values do not grow: infinity is as cheap as 3/2.
  Graph<double> onDouble = squares<double>(30);
  const Pack<double> doubles{Tensor<double>({}, {1.5})};
  EXPECT_FALSE(exceedsBudget(onDouble, &doubles, {}, kForwardOnly, Budget{}));
}

TEST(SizeCeiling, APredictedOvergrowthStopsBeforeTheNodeRuns) {
  Graph<Rational> g = squares<Rational>(30);
  auto context = spec::eval(g, {Tensor<Rational>({}, {Rational(3) / 2})}, {});
  ASSERT_FALSE(context);
  // (3/2)^(2^16) has 103873 + 65537 bits; its square may need twice as many.
  EXPECT_EQ(context.error().message,
            "node 17 (square): its values may need up to 338820 bits, more than the exact carriers' ceiling of 262144 bits");
  // Every checked layer stops at the same node with the same message.
  auto compiled = compileChecked(g, {Tensor<Rational>({}, {Rational(3) / 2})}, {});
  ASSERT_FALSE(compiled);
  EXPECT_EQ(compiled.error().message, context.error().message);
}

TEST(SizeCeiling, AnOvergrowthTheRuleCannotPredictStopsAfterTheNode) {
  // Three fractions with distinct, coprime 60001-bit denominators: each has 60002 bits, their
  // sum's denominator is the product of theirs, and a sum's rule (its largest argument) does not see
  // it coming. Two of them stay below the ceiling.
  std::vector<Rational> values;
  for (int i = 0; i < 3; ++i) values.push_back(Rational(1) / (Rational(Integer(1) << 60000) + (2 * i + 1)));
  auto sumOf = [](std::vector<Rational> v) {
    auto b = *GraphBuilder<Rational>::create({{v.size()}});
    b.add(OpKind::sum, {0}).value();
    const Shape shape{v.size()};
    return spec::eval(std::move(b).build(), {Tensor<Rational>(shape, std::move(v))}, {});
  };
  auto three = sumOf(values);
  ASSERT_FALSE(three);
  EXPECT_EQ(three.error().message,
            "node 1 (sum): a value needs 300003 bits, more than the exact carriers' ceiling of 262144 bits");
  values.pop_back();
  EXPECT_TRUE(sumOf(values));
}

}  // namespace
}  // namespace tc
