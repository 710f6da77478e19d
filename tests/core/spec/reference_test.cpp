// The reference semantics: eval's context, the literal dense order of backpropAll (the
// docs/semantics.md §1.11 witnesses that need no runtime), domain errors, and a long chain on a small stack.
#include <gtest/gtest.h>

#include <pthread.h>

#include <cmath>
#include <functional>
#include <limits>

#include "core/graph/builder.h"
#include "core/spec/reference.h"
#include "tests/support/hand_made.h"

namespace tc {
namespace {

using testing::builderFor;
using testing::scaleBy;
using testing::seedAt;
using testing::tensorOf;

template <class F>
std::uint32_t bits(F x) {
  return std::bit_cast<std::uint32_t>(x);
}

TEST(Reference, EvalReturnsInputsThenNodesInOrder) {
  auto b = builderFor<Rational>({{2}});
  ASSERT_TRUE(b.add(OpKind::square, {0}));
  ASSERT_TRUE(b.add(OpKind::add, {0, 1}));
  Graph<Rational> g = std::move(b).build();
  auto context = spec::eval(g, {tensorOf<Rational>({2}, {Rational(3), Rational(-1)})}, {});
  ASSERT_TRUE(context);
  ASSERT_EQ(context->size(), 3u);
  EXPECT_EQ((*context)[1].values, (std::vector<Rational>{9, 1}));
  EXPECT_EQ((*context)[2].values, (std::vector<Rational>{12, 0}));
}

TEST(Reference, WitnessBranchOrderFollowsReverseCreationOrder) {
  auto b = builderFor<float>({{4}});
  std::size_t a = *b.add(OpKind::scale, {0}, scaleBy(1.0f));
  std::size_t big = *b.add(OpKind::scale, {0}, scaleBy(16777216.0f));
  std::size_t negBig = *b.add(OpKind::scale, {0}, scaleBy(-16777216.0f));
  std::size_t sum = *b.add(OpKind::add, {a, big});
  std::size_t out = *b.add(OpKind::add, {sum, negBig});
  Graph<float> g = std::move(b).build();
  auto x = Tensor<float>::filled({4}, 1.0f);
  auto grads = spec::backpropAll(g, {x}, {}, seedAt(g, out, Tensor<float>::filled({4}, 1.0f)));
  ASSERT_TRUE(grads);
  for (float v : (*grads)[0].values) EXPECT_EQ(bits(v), bits(1.0f));  // creation order would give 0
}

TEST(Reference, WitnessRepeatedParentFormsTheLocalSumFirst) {
  auto b = builderFor<float>({{}});
  std::size_t out = *b.add(OpKind::add, {0, 0});
  Graph<float> g = std::move(b).build();
  Pack<float> seeds = seedAt(g, out, tensorOf<float>({}, {1.0f}));
  seeds[0] = tensorOf<float>({}, {16777216.0f});
  auto grads = spec::backpropAll(g, {tensorOf<float>({}, {5.0f})}, {}, seeds);
  ASSERT_TRUE(grads);
  EXPECT_EQ(bits((*grads)[0][0]), bits(16777218.0f));  // 2^24 + (1 + 1), not (2^24 + 1) + 1
}

TEST(Reference, WitnessDisconnectedSingularNodeStillRuns) {
  auto b = builderFor<float>({{}});
  ASSERT_TRUE(b.add(OpKind::inv, {0}));
  std::size_t out = *b.add(OpKind::relu, {0});
  Graph<float> g = std::move(b).build();
  auto grads = spec::backpropAll(g, {tensorOf<float>({}, {0.0f})}, {}, seedAt(g, out, tensorOf<float>({}, {1.0f})));
  ASSERT_TRUE(grads);
  EXPECT_TRUE(std::isnan((*grads)[0][0]));
}

TEST(Reference, WitnessOpaqueProgramRunsAtZeroSeed) {
  auto b = builderFor<float>({{2}});
  ASSERT_TRUE(b.addOpaque("const3", {0}));
  Graph<float> g = std::move(b).build();
  auto grads = spec::backpropAll(g, {tensorOf<float>({2}, {1.0f, -1.0f})}, {},
                                 seedAt(g, 1, Tensor<float>::filled({2}, 0.0f)));
  ASSERT_TRUE(grads);
  EXPECT_EQ((*grads)[0].values, (std::vector<float>{3.0f, 3.0f}));
}

TEST(Reference, WitnessZeroContributionsTurnNegativeZeroIntoPositiveZero) {
  // z is not used by y, yet the dense order adds +0 to it: its -0 seed becomes +0.
  auto b = builderFor<double>({{}, {}});
  ASSERT_TRUE(b.add(OpKind::neg, {0}));
  Graph<double> g = std::move(b).build();
  Pack<double> seeds = seedAt(g, 2, tensorOf<double>({}, {0.0}));
  seeds[1] = tensorOf<double>({}, {-0.0});
  auto grads = spec::backpropAll(g, {tensorOf<double>({}, {1.0}), tensorOf<double>({}, {1.0})}, {}, seeds);
  ASSERT_TRUE(grads);
  EXPECT_FALSE(std::signbit((*grads)[1][0]));
  EXPECT_FALSE(std::signbit((*grads)[0][0]));  // -(+0) = -0 at x, then... x's own seed +0 + -0 = +0
  // Without nodes after it, a -0 seed is returned untouched.
  auto leafOnly = builderFor<double>({{}});
  Graph<double> g2 = std::move(leafOnly).build();
  auto grads2 = spec::backpropAll(g2, {tensorOf<double>({}, {1.0})}, {}, {tensorOf<double>({}, {-0.0})});
  ASSERT_TRUE(grads2);
  EXPECT_TRUE(std::signbit((*grads2)[0][0]));
}

TEST(Reference, ExactGradientsOfAMaskedProduct) {
  // The worked example of docs/file-format.md, computed by hand there.
  auto b = *GraphBuilder<Rational>::create({{2, 3}, {3}}, DataSchema{{{"m", {2}}}, {}});
  std::size_t mm = *b.add(OpKind::matmul, {0, 1});
  Attrs<Rational> maskAttrs;
  maskAttrs.key = "m";
  std::size_t masked = *b.add(OpKind::mask, {mm}, maskAttrs);
  std::size_t out = *b.add(OpKind::scale, {masked}, scaleBy(*parseValue<Rational>("-1/2")));
  Graph<Rational> g = std::move(b).build();
  auto q = [](const char* text) { return *parseValue<Rational>(text); };
  Pack<Rational> inputs{tensorOf<Rational>({2, 3}, {q("1"), q("-2"), q("3/4"), q("0"), q("1"), q("2")}),
                        tensorOf<Rational>({3}, {q("1"), q("1/2"), q("2")})};
  Data<Rational> data{{"m", tensorOf<Rational>({2}, {q("1"), q("0")})}};
  auto grads = spec::backpropAll(g, inputs, data, seedAt(g, out, tensorOf<Rational>({2}, {q("1"), q("3")})));
  ASSERT_TRUE(grads);
  EXPECT_EQ((*grads)[0].values, (std::vector<Rational>{q("-1/2"), q("-1/4"), q("-1"), 0, 0, 0}));
  EXPECT_EQ((*grads)[1].values, (std::vector<Rational>{q("-1/2"), q("1"), q("-3/8")}));
  EXPECT_EQ((*grads)[3].values, (std::vector<Rational>{q("-1/2"), q("-3/2")}));
}

TEST(Reference, DomainErrorsNameThePositionAndOp) {
  for (double bad : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN()}) {
    auto b = builderFor<double>({{2}});
    ASSERT_TRUE(b.add(OpKind::exp, {0}));
    ASSERT_TRUE(b.add(OpKind::log, {0}));
    Graph<double> g = std::move(b).build();
    auto context = spec::eval(g, {tensorOf<double>({2}, {1.0, bad})}, {});
    ASSERT_FALSE(context);
    EXPECT_EQ(context.error().message, "node 2 (log): input contains values <= 0 or NaN");
  }
  auto b = builderFor<Rational>({{}, {}});
  ASSERT_TRUE(b.add(OpKind::div, {0, 1}));
  ASSERT_TRUE(b.add(OpKind::inv, {1}));
  Graph<Rational> g = std::move(b).build();
  auto divByZero = spec::eval(g, {tensorOf<Rational>({}, {1}), tensorOf<Rational>({}, {0})}, {});
  ASSERT_FALSE(divByZero);
  EXPECT_EQ(divByZero.error().message, "node 2 (div): divisor contains 0");
}

TEST(Reference, EvalRejectsInputsOfTheWrongShape) {
  auto b = builderFor<Rational>({{2}});
  Graph<Rational> g = std::move(b).build();
  auto context = spec::eval(g, {tensorOf<Rational>({1}, {1})}, {});
  ASSERT_FALSE(context);
  EXPECT_EQ(context.error().message, "input 0 has shape [1], the graph expects [2]");
}

// Runs `f` on a thread whose stack is `bytes` long and waits for it.
void onStackOf(std::size_t bytes, const std::function<void()>& f) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, bytes), 0);
  pthread_t thread;
  auto run = [](void* arg) -> void* {
    (*static_cast<const std::function<void()>*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, run, const_cast<std::function<void()>*>(&f)), 0);
  ASSERT_EQ(pthread_join(thread, nullptr), 0);
  pthread_attr_destroy(&attr);
}

// Evaluation and the reverse pass loop over the nodes; neither recurses. A recursion would need a
// frame per node, and the least a call pushes is its 8-byte return address: 30,000 nodes need
// over 234 KiB, more than the 128 KiB stack this runs on (a stack overflow is a crash). The
// chain is no longer because backpropAll is quadratic by its definition (docs/semantics.md §1.6).
TEST(Reference, LongChainNeedsNoRecursion) {
  // neg then abs, 15,000 times: the value returns to 2 and each pair's derivative is (-1)(-1).
  constexpr std::size_t kNodes = 30000, kStack = 128 * 1024;
  static_assert(kNodes * 8 > kStack, "a recursion would overflow the stack");
  auto b = builderFor<double>({{}});
  for (std::size_t k = 0; k < kNodes; ++k) ASSERT_TRUE(b.add(k % 2 ? OpKind::abs : OpKind::neg, {k}));
  Graph<double> g = std::move(b).build();
  Pack<double> inputs{tensorOf<double>({}, {2.0})};
  Pack<double> seeds = seedAt(g, kNodes, tensorOf<double>({}, {1.0}));
  Result<Context<double>> context = fail("not run");
  Result<Pack<double>> grads = fail("not run");
  onStackOf(kStack, [&] {
    context = spec::eval(g, inputs, {});
    grads = spec::backpropAll(g, inputs, {}, seeds);
  });
  ASSERT_TRUE(context);
  EXPECT_EQ(context->back()[0], 2.0);
  ASSERT_TRUE(grads);
  EXPECT_EQ((*grads)[0][0], 1.0);
  EXPECT_EQ((*grads)[kNodes - 1][0], -1.0);  // the last neg's value -2, seen through abs
  EXPECT_EQ((*grads)[kNodes - 2][0], 1.0);
}

}  // namespace
}  // namespace tc
