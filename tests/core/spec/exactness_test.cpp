// The exact domain (docs/semantics.md §1.12): the checker accepts cases on which no order of any
// sum or product rounds and rejects, naming the step, those on which some order may. Every test
// runs on double and float; p is the carrier's significand width (53, 24).
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/carriers/grid_bound.h"
#include "core/graph/builder.h"
#include "core/ops/opaque.h"
#include "core/spec/exactness.h"
#include "core/spec/reference.h"
#include "tests/support/hand_made.h"

namespace tc {
namespace {

using testing::builderFor;
using testing::scalarOf;
using testing::seedAt;
using testing::tensorOf;

template <class T>
class ExactDomain : public ::testing::Test {
 protected:
  static constexpr int p = std::numeric_limits<T>::digits;
  static constexpr std::string_view name = Carrier<T>::name;
};
using IeeeCarriers = ::testing::Types<double, float>;
TYPED_TEST_SUITE(ExactDomain, IeeeCarriers);

template <class T>
T pow2(int k) {
  return std::ldexp(T(1), k);
}

// The last position seeded with ones.
template <class T>
Pack<T> onesAtLast(const Graph<T>& graph) {
  std::size_t last = graph.positionCount() - 1;
  return seedAt(graph, last, Tensor<T>::filled(graph.shapeAt(last), T(1)));
}

// "accepted", or the checker's message.
template <class T>
std::string verdict(const Graph<T>& graph, const Pack<T>& inputs, const Pack<T>& seeds, const Data<T>& data = {}) {
  auto result = spec::checkExactDomain(graph, inputs, data, seeds);
  return result ? "accepted" : result.error().message;
}

// One node `kind` on the given inputs (the arguments are the inputs, in order), seeded with ones.
template <class T>
std::string verdictOfOneNode(OpKind kind, std::vector<Tensor<T>> inputs, Attrs<T> attrs = {}) {
  std::vector<Shape> shapes;
  std::vector<std::size_t> args;
  for (const Tensor<T>& x : inputs) shapes.push_back(x.shape), args.push_back(args.size());
  auto b = builderFor<T>(shapes);
  EXPECT_TRUE(b.add(kind, args, std::move(attrs)));
  Graph<T> g = std::move(b).build();
  return verdict(g, inputs, onesAtLast(g));
}

TYPED_TEST(ExactDomain, AcceptsAChainOfSmallDyadicValues) {
  using T = TypeParam;
  auto b = builderFor<T>({{2, 2}, {2, 2}});
  std::size_t sum = *b.add(OpKind::add, {0, 1});
  std::size_t product = *b.add(OpKind::mul, {sum, 0});
  std::size_t mm = *b.add(OpKind::matmul, {product, 1});
  std::size_t r = *b.add(OpKind::relu, {mm});
  std::size_t m = *b.add(OpKind::max, {r, 0});
  std::size_t total = *b.add(OpKind::sum, {m});
  Graph<T> g = std::move(b).build();
  Pack<T> inputs{tensorOf<T>({2, 2}, {0.5, -1.25, 3, 0.75}), tensorOf<T>({2, 2}, {2, 0.25, -1.5, 1})};
  Pack<T> seeds = seedAt(g, total, scalarOf<T>(1));
  seeds[product] = tensorOf<T>({2, 2}, {0.5, -2, 0, 0.125});  // a seed pack, not only the output
  EXPECT_EQ(verdict(g, inputs, seeds), "accepted");
}

TYPED_TEST(ExactDomain, AcceptsMaxTiesWhereEachSideGetsHalfTheCotangent) {
  using T = TypeParam;
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::max, {tensorOf<T>({2}, {3, -0.5}), tensorOf<T>({2}, {3, 1})}), "accepted");
}

// The spec's left fold gives 0: 1 + 2^p rounds to 2^p, and the representable end result hides it.
// Adding the two large values first gives the exact 1.
TYPED_TEST(ExactDomain, RejectsASumWhoseOwnFoldRoundsToARepresentableResult) {
  using T = TypeParam;
  const int p = this->p;
  auto b = builderFor<T>({{5}});
  ASSERT_TRUE(b.add(OpKind::sum, {0}));
  Graph<T> g = std::move(b).build();
  Pack<T> inputs{tensorOf<T>({5}, {1, pow2<T>(p), 0, 0, -pow2<T>(p)})};
  EXPECT_EQ((*spec::eval(g, inputs, {}))[1][0], T(0));
  // The first step that may round is the fold's own 1 + 2^p.
  EXPECT_EQ(verdict(g, inputs, onesAtLast(g)),
            fmt::format("node 1 (sum): the sum needs {} significant bits, {} has {}", p + 1, this->name, p));
}

// Every step of the spec's left fold 1, 1 + 2^(p-1), 1, 1 + 2^(p-1) is exact, but an interleaved
// order adds the two 2^(p-1) first and then 1 rounds: bounds must add, not take their maximum.
TYPED_TEST(ExactDomain, RejectsASumThatOnlyAnotherOrderRounds) {
  using T = TypeParam;
  const int p = this->p;
  auto b = builderFor<T>({{4}});
  ASSERT_TRUE(b.add(OpKind::sum, {0}));
  Graph<T> g = std::move(b).build();
  const T half = pow2<T>(p - 1);
  Pack<T> inputs{tensorOf<T>({4}, {1, half, -half, half})};
  EXPECT_EQ((*spec::eval(g, inputs, {}))[1][0], half + 1);
  EXPECT_EQ((half + half) + 1 - half, half);  // the interleaved order
  EXPECT_EQ(verdict(g, inputs, onesAtLast(g)),
            fmt::format("node 1 (sum): the sum needs {} significant bits, {} has {}", p + 1, this->name, p));
}

// An exact zero is a multiple of every power of two: the +0 a fold or a gradient starts from does
// not pull large values onto a grid of 1.
TYPED_TEST(ExactDomain, ExactZerosLieOnEveryGrid) {
  using T = TypeParam;
  const int p = this->p;
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::sum, {tensorOf<T>({2}, {pow2<T>(p + 10), -pow2<T>(p + 11)})}), "accepted");
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::mul, {scalarOf(pow2<T>(p + 10) + pow2<T>(11)), scalarOf<T>(0)}), "accepted");
}

TYPED_TEST(ExactDomain, RejectsTwoToThePPlusOne) {
  using T = TypeParam;
  const int p = this->p;
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::add, {scalarOf(pow2<T>(p)), scalarOf<T>(1)}),
            fmt::format("node 2 (add): the sum needs {} significant bits, {} has {}", p + 1, this->name, p));
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::add, {scalarOf(pow2<T>(p)), scalarOf<T>(2)}), "accepted");
}

// (2^h − 1)² needs 2h bits: 2^26 − 1 squared fits double (52 bits), 2^27 − 1 squared does not (54);
// on float 2^12 − 1 (24 bits) and 2^13 − 1 (26 bits).
TYPED_TEST(ExactDomain, RejectsAProductWiderThanTheSignificand) {
  using T = TypeParam;
  const int p = this->p;
  const T narrow = pow2<T>(p / 2) - 1, wide = pow2<T>((p + 2) / 2) - 1;
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::mul, {scalarOf(narrow), scalarOf(narrow)}), "accepted");
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::mul, {scalarOf(wide), scalarOf(wide)}),
            fmt::format("node 2 (mul): the product needs {} significant bits, {} has {}", 2 * ((p + 2) / 2), this->name, p));
}

TYPED_TEST(ExactDomain, DivisionIsExactOnlyByAPowerOfTwo) {
  using T = TypeParam;
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::div, {tensorOf<T>({2}, {1, 6}), tensorOf<T>({2}, {4, 0.25})}), "accepted");
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::div, {tensorOf<T>({2}, {1, 6}), tensorOf<T>({2}, {4, 3})}),
            "node 2 (div), value 1: division by 3 is not exact");
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::div, {scalarOf<T>(6), scalarOf<T>(0)}), "node 2 (div): division by 0 is not exact");
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::inv, {scalarOf<T>(-0.125)}), "accepted");
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::inv, {scalarOf<T>(5)}), "node 1 (inv): division by 5 is not exact");
  // Dividing by 2^k moves the grid down by k: 3·2^lowest / 4 falls below the smallest subnormal.
  const int lowest = GridBound<T>::kLowestExponent;
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::div, {scalarOf(3 * pow2<T>(lowest)), scalarOf<T>(4)}),
            fmt::format("node 2 (div): the quotient needs bits down to 2^{} in some order, below {}'s smallest "
                        "subnormal 2^{}", lowest - 2, this->name, lowest));
}

TYPED_TEST(ExactDomain, MeanIsExactOverAPowerOfTwoElements) {
  using T = TypeParam;
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::mean, {tensorOf<T>({2, 2}, {1, 2, 3, 5})}), "accepted");
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::mean, {tensorOf<T>({3}, {1, 2, 3})}), "node 1 (mean): division by 3 is not exact");
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::mse_loss, {tensorOf<T>({4}, {1, 2, 3, 5}), tensorOf<T>({4}, {0, 0.5, 3, -1})}),
            "accepted");
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::mse_loss, {tensorOf<T>({3}, {1, 2, 3}), tensorOf<T>({3}, {0, 0.5, 3})}),
            "node 2 (mse_loss): division by 3 is not exact");
}

TYPED_TEST(ExactDomain, RejectsTranscendentalOpsBeforeRunning) {
  using T = TypeParam;
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::exp, {scalarOf<T>(0)}),
            "node 1 (exp): not in the exact domain: needs transcendental functions");
  // An exact zero goes in and the result would even be 1; the op is out of the domain all the same.
}

TYPED_TEST(ExactDomain, RejectsNonFiniteLeaves) {
  using T = TypeParam;
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::neg, {tensorOf<T>({3}, {1, 2, nan})}), "input 0 value 2 is nan, not finite");
  Attrs<T> scale;
  scale.c = inf;
  EXPECT_EQ(verdictOfOneNode<T>(OpKind::scale, {scalarOf<T>(1)}, scale), "node 1 (scale): attribute c value 0 is inf, not finite");
  auto b = builderFor<T>({{}});
  ASSERT_TRUE(b.add(OpKind::neg, {0}));
  Graph<T> g = std::move(b).build();
  EXPECT_EQ(verdict(g, {scalarOf<T>(1)}, seedAt(g, 1, scalarOf(-inf))), "seed at position 1 value 0 is -inf, not finite");
}

// The forward value is exact; the cotangent times the other factor is not.
TYPED_TEST(ExactDomain, RejectsAGradientThatWouldRound) {
  using T = TypeParam;
  const int p = this->p;
  const T wide = pow2<T>((p + 2) / 2) - 1;
  auto b = builderFor<T>({{}, {}});
  std::size_t product = *b.add(OpKind::mul, {0, 1});
  Graph<T> g = std::move(b).build();
  Pack<T> inputs{scalarOf<T>(1), scalarOf(wide)};
  EXPECT_EQ(verdict(g, inputs, seedAt(g, product, scalarOf<T>(1))), "accepted");
  EXPECT_EQ(verdict(g, inputs, seedAt(g, product, scalarOf(wide))),
            fmt::format("node 2 (mul), contribution to position 0: the product needs {} significant bits, {} has {}",
                        2 * ((p + 2) / 2), this->name, p));
}

// add(x, x) with seeds s at x and ct at the output: the spec forms ct + ct first, an engine that
// accumulates per edge adds (s + ct) + ct. They agree when every partial sum is exact.
TYPED_TEST(ExactDomain, RepeatedArgumentIsExactOnlyIfPerEdgeAccumulationIs) {
  using T = TypeParam;
  const int p = this->p;
  auto b = builderFor<T>({{}});
  std::size_t out = *b.add(OpKind::add, {0, 0});
  Graph<T> g = std::move(b).build();
  auto seeds = [&](T atX, T atOut) {
    Pack<T> pack = seedAt(g, out, scalarOf(atOut));
    pack[0] = scalarOf(atX);
    return pack;
  };
  Pack<T> inputs{scalarOf<T>(3)};
  EXPECT_EQ(verdict(g, inputs, seeds(4, 1)), "accepted");
  // 2^p + (1 + 1) is exact, (2^p + 1) + 1 is not (docs/semantics.md §1.11, "repeated parent").
  EXPECT_EQ((*spec::backpropAll(g, inputs, {}, seeds(pow2<T>(p), 1)))[0][0], pow2<T>(p) + 2);
  EXPECT_EQ(verdict(g, inputs, seeds(pow2<T>(p), 1)),
            fmt::format("gradient at position 0: the sum needs {} significant bits, {} has {}", p + 1, this->name, p));
  // The same sum forming a node's cotangent: y = scale(x, 1), add(y, y), seeded at y and at the output.
  auto b2 = builderFor<T>({{}});
  std::size_t y = *b2.add(OpKind::scale, {0}, [] { Attrs<T> a; a.c = T(1); return a; }());
  std::size_t out2 = *b2.add(OpKind::add, {y, y});
  Graph<T> g2 = std::move(b2).build();
  Pack<T> seeds2 = seedAt(g2, out2, scalarOf<T>(1));
  seeds2[y] = scalarOf(pow2<T>(p));
  EXPECT_EQ(verdict(g2, inputs, seeds2),
            fmt::format("gradient at position 1: the sum needs {} significant bits, {} has {}", p + 1, this->name, p));
  // ct + ct itself leaves the carrier's range.
  EXPECT_EQ(verdict(g, inputs, seeds(0, std::numeric_limits<T>::max())),
            fmt::format("node 1 (add), contribution to position 0: the sum may exceed {}'s largest finite value in "
                        "some order", this->name));
}

// mul(mul(x, z), y) with x·z = 1 is exact as the spec computes it, but an engine that regroups the
// product forms x·y (below the smallest subnormal) or, with large x and y, overflows.
TYPED_TEST(ExactDomain, RejectsAProductThatARegroupingUnderflowsOrOverflows) {
  using T = TypeParam;
  const int big = std::numeric_limits<T>::max_exponent * 15 / 16;  // 960 on double, 120 on float
  const int lowest = GridBound<T>::kLowestExponent;
  auto b = builderFor<T>({{}, {}, {}});
  std::size_t xz = *b.add(OpKind::mul, {0, 2});
  ASSERT_TRUE(b.add(OpKind::mul, {xz, 1}));
  Graph<T> g = std::move(b).build();
  const int small = lowest + big - 10;
  Pack<T> tiny{scalarOf(pow2<T>(-big)), scalarOf(pow2<T>(small)), scalarOf(pow2<T>(big))};
  EXPECT_EQ((*spec::eval(g, tiny, {}))[4][0], pow2<T>(small));
  EXPECT_EQ(verdict(g, tiny, onesAtLast(g)),
            fmt::format("node 4 (mul): the product needs bits down to 2^{} in some order, below {}'s smallest "
                        "subnormal 2^{}", small - big, this->name, lowest));
  Pack<T> huge{scalarOf(pow2<T>(big)), scalarOf(pow2<T>(big / 2 + 10)), scalarOf(pow2<T>(-big))};
  EXPECT_EQ(verdict(g, huge, onesAtLast(g)),
            fmt::format("node 4 (mul): the product may exceed {}'s largest finite value in some order", this->name));
  Pack<T> moderate{scalarOf(pow2<T>(big / 4)), scalarOf(pow2<T>(big / 4)), scalarOf(pow2<T>(-big / 4))};
  EXPECT_EQ(verdict(g, moderate, onesAtLast(g)), "accepted");
}

TYPED_TEST(ExactDomain, AcceptsTheBuiltInOpaqueProgramsAndRejectsOnesWithoutAnExactDefinition) {
  using T = TypeParam;
  auto b = builderFor<T>({{2}});
  std::size_t twice = *b.addOpaque("twice", {0});
  ASSERT_TRUE(b.addOpaque("const3", {twice}));
  Graph<T> g = std::move(b).build();
  // twice doubles a value of p significant bits: the factor 2 keeps it at p bits.
  EXPECT_EQ(verdict(g, {tensorOf<T>({2}, {pow2<T>(this->p - 1) + 1, -3})}, onesAtLast(g)), "accepted");
  // An identity registered for T only: GridBound<T> has no definition of it.
  if (!OpaqueRegistry<T>::instance().find("exactness_test_only_ieee")) {
    OpaqueDef<T> only;
    only.name = "exactness_test_only_ieee";
    only.shape = [](std::span<const Shape* const> args) -> Result<Shape> { return *args[0]; };
    only.forward = [](std::span<const Tensor<T>* const> args) { return *args[0]; };
    only.program = [](const OpaqueProgramCall<T>& call) {
      Pack<T> result;
      for (const Tensor<T>& x : call.prefix) result.push_back(Tensor<T>::filled(x.shape, T(0)));
      result[call.args[0]] = call.ct;
      return result;
    };
    ASSERT_TRUE(OpaqueRegistry<T>::instance().add(std::move(only)));
  }
  auto b2 = builderFor<T>({{2}});
  ASSERT_TRUE(b2.addOpaque("exactness_test_only_ieee", {0}));
  Graph<T> g2 = std::move(b2).build();
  EXPECT_EQ(verdict(g2, {tensorOf<T>({2}, {1.5, -3})}, onesAtLast(g2)),
            "node 1 (opaque exactness_test_only_ieee): not in the exact domain: the opaque program has no "
            "exact-domain definition");
}

TYPED_TEST(ExactDomain, LiftsAttributesAndDataAsLeaves) {
  using T = TypeParam;
  const int p = this->p;
  DataSchema schema;
  schema.tensors["m"] = {2};
  auto b = *GraphBuilder<T>::create({{2}}, schema);
  Attrs<T> scale;
  scale.c = pow2<T>(p - 1) + 1;  // p significant bits
  std::size_t scaled = *b.add(OpKind::scale, {0}, scale);
  Attrs<T> mask;
  mask.key = "m";
  ASSERT_TRUE(b.add(OpKind::mask, {scaled}, mask));
  Graph<T> g = std::move(b).build();
  Data<T> data{{"m", tensorOf<T>({2}, {1, 0.5})}};
  EXPECT_EQ(verdict(g, {tensorOf<T>({2}, {1, -4})}, onesAtLast(g), data), "accepted");
  EXPECT_EQ(verdict(g, {tensorOf<T>({2}, {1, 3})}, onesAtLast(g), data),
            fmt::format("node 1 (scale), value 1: the product needs {} significant bits, {} has {}", p + 1, this->name, p));
  data["m"] = tensorOf<T>({2}, {1, 3});
  EXPECT_EQ(verdict(g, {tensorOf<T>({2}, {1, -4})}, onesAtLast(g), data),
            fmt::format("node 2 (mask), value 1: the product needs {} significant bits, {} has {}", p + 1, this->name, p));
}

TYPED_TEST(ExactDomain, ChecksInputsDataAndSeedsLikeTheReference) {
  using T = TypeParam;
  auto b = builderFor<T>({{2}});
  ASSERT_TRUE(b.add(OpKind::neg, {0}));
  Graph<T> g = std::move(b).build();
  EXPECT_EQ(verdict(g, {scalarOf<T>(1)}, onesAtLast(g)), "input 0 has shape [], the graph expects [2]");
  EXPECT_EQ(verdict(g, {tensorOf<T>({2}, {1, 2})}, {}), "a seed pack needs 2 tensors (one per position), got 0");
}

// The carrier's own rules, value by value.
TEST(GridBound, LeavesHaveTheirLowestSetBitAsGridAndTheirMagnitudeAsBound) {
  using G = GridBound<double>;
  G x = G::lift(-0.75);
  EXPECT_EQ(x.grid, -2);
  EXPECT_EQ(x.bound, 0.75L);
  EXPECT_EQ(G::lift(std::ldexp(1.0, -1074)).grid, -1074);
  EXPECT_EQ(GridBound<float>::lift(std::ldexp(3.0f, -149)).grid, -149);
  EXPECT_EQ(G::fromInt(12).grid, 2);
  EXPECT_TRUE(G::lift(-0.0).isZero());
  EXPECT_FALSE(G::lift(std::numeric_limits<double>::quiet_NaN()).exact());
}

TEST(GridBound, SumsTakeTheFinerGridAndAddBoundsProductsAddGridsAndMultiplyBounds) {
  using G = GridBound<double>;
  G a = G::lift(0.75), b = G::lift(-6);
  G sum = a + b;
  EXPECT_EQ(sum.value, -5.25);
  EXPECT_EQ(sum.grid, -2);
  EXPECT_EQ(sum.bound, 6.75L);  // not |−5.25|: another order may pass through larger values
  G difference = a - a;
  EXPECT_EQ(difference.value, 0);
  EXPECT_FALSE(difference.isZero());  // zero as computed, but only a sum of opposite values
  EXPECT_EQ(difference.bound, 1.5L);
  G product = a * b;
  EXPECT_EQ(product.grid, -1);
  EXPECT_EQ(product.bound, 4.5L);
  G zero = a * G::fromInt(0);
  EXPECT_TRUE(zero.isZero());
  EXPECT_EQ((zero + a).grid, -2);
  G quarter = b / G::fromInt(4);
  EXPECT_EQ(quarter.grid, -1);
  EXPECT_EQ(quarter.bound, 1.5L);
  EXPECT_FALSE((b / G::fromInt(3)).exact());
}

}  // namespace
}  // namespace tc
