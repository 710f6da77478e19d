// The witnesses of docs/semantics.md §1.11 on every engine, on float and double, compared bit for bit.
#include <gtest/gtest.h>

#include <limits>

#include "core/graph/builder.h"
#include "tests/core/runtime/engines.h"
#include "tests/support/hand_made.h"

namespace tc {
namespace {

using testing::expectGradientOnEveryEngine;
using testing::scaleBy;

template <class F>
class Witness : public ::testing::Test {};
using IeeeCarriers = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Witness, IeeeCarriers);

TYPED_TEST(Witness, BranchOrder) {
  using F = TypeParam;
  auto b = *GraphBuilder<F>::create({{4}});
  std::size_t a = *b.add(OpKind::scale, {0}, scaleBy(F(1)));
  std::size_t big = *b.add(OpKind::scale, {0}, scaleBy(F(16777216)));
  std::size_t negBig = *b.add(OpKind::scale, {0}, scaleBy(F(-16777216)));
  std::size_t out = *b.add(OpKind::add, {*b.add(OpKind::add, {a, big}), negBig});
  Graph<F> g = std::move(b).build();
  Pack<F> seeds = zeroSeedPack(g);
  seeds[out] = Tensor<F>::filled({4}, F(1));
  // float: creation order would give (1 + 2^24) - 2^24 = 0. double is exact either way.
  expectGradientOnEveryEngine(g, {Tensor<F>::filled({4}, F(1))}, seeds, 0, std::vector<F>(4, F(1)));
}

TYPED_TEST(Witness, RepeatedParent) {
  using F = TypeParam;
  auto b = *GraphBuilder<F>::create({{}});
  std::size_t out = *b.add(OpKind::add, {0, 0});
  Graph<F> g = std::move(b).build();
  Pack<F> seeds = zeroSeedPack(g);
  seeds[0] = Tensor<F>::filled({}, F(16777216));
  seeds[out] = Tensor<F>::filled({}, F(1));
  expectGradientOnEveryEngine(g, {Tensor<F>::filled({}, F(3))}, seeds, 0, {F(16777218)});
}

TYPED_TEST(Witness, DisconnectedSingularNode) {
  using F = TypeParam;
  auto b = *GraphBuilder<F>::create({{}});
  ASSERT_TRUE(b.add(OpKind::inv, {0}));
  std::size_t out = *b.add(OpKind::relu, {0});
  Graph<F> g = std::move(b).build();
  Pack<F> seeds = zeroSeedPack(g);
  seeds[out] = Tensor<F>::filled({}, F(1));
  expectGradientOnEveryEngine(g, {Tensor<F>::filled({}, F(0))}, seeds, 0, {std::numeric_limits<F>::quiet_NaN()});
}

TYPED_TEST(Witness, OpaqueAtZeroSeed) {
  using F = TypeParam;
  auto b = *GraphBuilder<F>::create({{3}});
  ASSERT_TRUE(b.addOpaque("const3", {0}));
  Graph<F> g = std::move(b).build();
  expectGradientOnEveryEngine(g, {Tensor<F>::filled({3}, F(-2))}, zeroSeedPack(g), 0, std::vector<F>(3, F(3)));
}

TYPED_TEST(Witness, PendingPositiveZeroIsSettledBeforeReadsAndWrites) {
  using F = TypeParam;
  // x, z inputs; y = neg(x); w = scale(x, 1); every seed is -0. Visiting w adds +0 to z and y
  // (neither is in its support), so y's cotangent is +0 and its term on x is -(+0) = -0:
  // x = (-0 + 1·-0) + -0 = -0. Reading y's -0 seed unsettled would make x +0.
  auto b = *GraphBuilder<F>::create({{}, {}});
  std::size_t y = *b.add(OpKind::neg, {0});
  std::size_t w = *b.add(OpKind::scale, {0}, scaleBy(F(1)));
  Graph<F> g = std::move(b).build();
  Pack<F> seeds = zeroSeedPack(g);
  for (Tensor<F>& seed : seeds) seed = Tensor<F>::filled({}, F(-0.0));
  Pack<F> inputs{Tensor<F>::filled({}, F(1)), Tensor<F>::filled({}, F(1))};
  expectGradientOnEveryEngine(g, inputs, seeds, 0, {F(-0.0)});
  expectGradientOnEveryEngine(g, inputs, seeds, 1, {F(0.0)});
  expectGradientOnEveryEngine(g, inputs, seeds, y, {F(0.0)});
  expectGradientOnEveryEngine(g, inputs, seeds, w, {F(-0.0)});  // the last node's seed is never touched
}

TYPED_TEST(Witness, NegativeZeroSurvivesWhenNoNodeFollows) {
  using F = TypeParam;
  auto b = *GraphBuilder<F>::create({{}});
  std::size_t y = *b.add(OpKind::scale, {0}, scaleBy(F(1)));
  Graph<F> g = std::move(b).build();
  Pack<F> seeds = zeroSeedPack(g);
  seeds[y] = Tensor<F>::filled({}, F(-0.0));
  seeds[0] = Tensor<F>::filled({}, F(-0.0));
  // x: -0 + (1 * -0) = -0 + -0 = -0: a write, not a +0.
  expectGradientOnEveryEngine(g, {Tensor<F>::filled({}, F(1))}, seeds, 0, {F(-0.0)});
}

}  // namespace
}  // namespace tc
