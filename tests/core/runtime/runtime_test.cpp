// The runtime: tape checks, error agreement across checked paths, and the single-output pass.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "core/graph/builder.h"
#include "core/graph/seed_pack.h"
#include "core/runtime/compiled.h"
#include "core/spec/reference.h"
#include "tests/core/runtime/engines.h"

namespace tc {
namespace {


template <class T>
Tensor<T> scalarOf(T v) {
  return Tensor<T>({}, {v});
}

// --- Tape::backwardDenseFrom -------------------------------------------------------------

Tape<Rational> twoNodeTape(bool parentRequiresGrad) {
  Tape<Rational> tape;
  tape.nodes.push_back(leafTapeNode(scalarOf(Rational(1))));
  tape.nodes.back().requiresGrad = parentRequiresGrad;
  tape.nodes.push_back(TapeNode<Rational>{"double", scalarOf(Rational(2)), true, {0}, [](const Tensor<Rational>& up) {
                                            return Result<Contributions<Rational>>(
                                                Contributions<Rational>{{0, scalarOf(up[0] * 2)}});
                                          }});
  return tape;
}

TEST(Tape, FoldsContributionsIntoEarlierNodes) {
  auto grads = twoNodeTape(true).backwardDenseFrom({scalarOf(Rational(5)), scalarOf(Rational(3))});
  ASSERT_TRUE(grads);
  EXPECT_EQ((*grads)[0][0], Rational(11));
}

TEST(Tape, DropsContributionsToFrozenNodes) {
  auto grads = twoNodeTape(false).backwardDenseFrom({scalarOf(Rational(5)), scalarOf(Rational(3))});
  ASSERT_TRUE(grads);
  EXPECT_EQ((*grads)[0][0], Rational(5));
}

TEST(Tape, SkipsFrozenNodesEntirely) {
  Tape<Rational> tape = twoNodeTape(true);
  tape.nodes[1].requiresGrad = false;
  tape.nodes[1].backward = [](const Tensor<Rational>&) { return Result<Contributions<Rational>>(fail("ran")); };
  auto grads = tape.backwardDenseFrom({scalarOf(Rational(5)), scalarOf(Rational(3))});
  ASSERT_TRUE(grads);
  EXPECT_EQ((*grads)[0][0], Rational(5));
}

TEST(Tape, ReportsEveryMalformedPass) {
  Tape<Rational> tape = twoNodeTape(true);
  EXPECT_EQ(tape.backwardDenseFrom({scalarOf(Rational(1))}).error().message, "tape backward: 1 gradients for 2 tape nodes");
  EXPECT_EQ(tape.backwardDenseFrom({scalarOf(Rational(1)), Tensor<Rational>({2}, {1, 1})}).error().message,
            "tape node 1 (double): upstream gradient has shape [2], the value has shape []");
  tape.nodes[1].backward = [](const Tensor<Rational>&) {
    return Result<Contributions<Rational>>(Contributions<Rational>{{1, scalarOf(Rational(1))}});
  };
  EXPECT_EQ(tape.backwardDenseFrom({scalarOf(Rational(1)), scalarOf(Rational(1))}).error().message,
            "tape node 1 (double): contribution to position 1, which is not earlier");
  tape.nodes[1].backward = [](const Tensor<Rational>&) {
    return Result<Contributions<Rational>>(Contributions<Rational>{{0, Tensor<Rational>({2}, {1, 1})}});
  };
  EXPECT_EQ(tape.backwardDenseFrom({scalarOf(Rational(1)), scalarOf(Rational(1))}).error().message,
            "tape node 1 (double): contribution to position 0 has shape [2], expected []");
}

TEST(Tape, LoweredNodesCheckTheUpstreamShape) {
  auto b = *GraphBuilder<Rational>::create({{2}});
  ASSERT_TRUE(b.add(OpKind::neg, {0}));
  Graph<Rational> g = std::move(b).build();
  auto lowered = lowerGraphDataToTape(g, {Tensor<Rational>({2}, {1, 2})}, {});
  ASSERT_EQ(lowered.tape.nodes.size(), 2u);
  EXPECT_EQ(lowered.tape.nodes[1].name, "neg");
  EXPECT_EQ(lowered.tape.nodes[1].parents, std::vector<std::size_t>{0});
  EXPECT_EQ(lowered.tape.nodes[1].backward(scalarOf(Rational(1))).error().message,
            "node 1 (neg): upstream gradient has shape [], expected [2]");
}

// --- Error agreement (docs/semantics.md §1.10) --------------------------------------------------------

// Every checked path on one case: the error (or "ok") of each, with its name.
template <class T>
std::vector<std::pair<std::string, std::string>> checkedOutcomes(const Graph<T>& g, const Pack<T>& inputs) {
  auto outcome = [](const auto& result) { return result ? std::string("ok") : result.error().message; };
  return {{"spec::eval", outcome(spec::eval(g, inputs, {}))},
          {"compileChecked", outcome(compileChecked(g, inputs, {}))},
          {"SavedGraph::lowerChecked", outcome(SavedGraph<T>::lowerChecked(g, inputs, {}))},
          {"lowerToArrayChecked", outcome(lowerToArrayChecked(g, inputs, {}))},
          {"lowerToTapeChecked", outcome(lowerToTapeChecked(g, inputs, {}))}};
}

template <class T>
void expectEveryPathFailsWith(const Graph<T>& g, const Pack<T>& inputs, const std::string& message) {
  for (const auto& [path, outcome] : checkedOutcomes(g, inputs)) EXPECT_EQ(outcome, message) << path;
}

template <class F>
void checkLogAgreement() {
  for (F bad : {F(0), F(-1), std::numeric_limits<F>::quiet_NaN()}) {
    auto b = *GraphBuilder<F>::create({{3}});
    ASSERT_TRUE(b.add(OpKind::exp, {0}));
    ASSERT_TRUE(b.add(OpKind::log, {0}));
    ASSERT_TRUE(b.add(OpKind::log, {1}));  // never reached: the first failure wins
    Graph<F> g = std::move(b).build();
    expectEveryPathFailsWith(g, {Tensor<F>({3}, {F(2), bad, F(1)})}, "node 2 (log): input contains values <= 0 or NaN");
  }
}

TEST(ErrorAgreement, LogAtZeroNegativeAndNanFailIdenticallyOnEveryCheckedPath) {
  checkLogAgreement<double>();
  checkLogAgreement<float>();
}

template <class T>
void checkDivisionAgreement() {
  auto b = *GraphBuilder<T>::create({{2}, {2}});
  ASSERT_TRUE(b.add(OpKind::inv, {0}));
  ASSERT_TRUE(b.add(OpKind::div, {0, 1}));
  Graph<T> g = std::move(b).build();
  auto v = [](int n) { return Carrier<T>::fromInt(n); };
  expectEveryPathFailsWith(g, {Tensor<T>({2}, {v(1), v(2)}), Tensor<T>({2}, {v(3), v(0)})},
                           "node 3 (div): divisor contains 0");
  expectEveryPathFailsWith(g, {Tensor<T>({2}, {v(0), v(2)}), Tensor<T>({2}, {v(3), v(0)})},
                           "node 2 (inv): input contains 0");
  for (const auto& [path, outcome] : checkedOutcomes(g, {Tensor<T>({2}, {v(1), v(2)}), Tensor<T>({2}, {v(3), v(4)})}))
    EXPECT_EQ(outcome, "ok") << path;
}

TEST(ErrorAgreement, DivisionByZeroFailsIdenticallyOnExactCarriers) {
  checkDivisionAgreement<Rational>();
  checkDivisionAgreement<RationalNoEq>();
  checkDivisionAgreement<ModP>();
}

TEST(ErrorAgreement, DivisionByZeroIsNoErrorOnIeee) {
  auto b = *GraphBuilder<double>::create({{}});
  ASSERT_TRUE(b.add(OpKind::inv, {0}));
  Graph<double> g = std::move(b).build();
  auto compiled = compileChecked(g, {scalarOf(0.0)}, {});
  ASSERT_TRUE(compiled);
  EXPECT_EQ(compiled->context()[1][0], std::numeric_limits<double>::infinity());
}

TEST(ErrorAgreement, SuccessfulPathsProduceIdenticalContexts) {
  auto b = *GraphBuilder<Rational>::create({{2}});
  ASSERT_TRUE(b.add(OpKind::square, {0}));
  ASSERT_TRUE(b.add(OpKind::mul, {1, 0}));
  Graph<Rational> g = std::move(b).build();
  Pack<Rational> inputs{Tensor<Rational>({2}, {Rational(-2), *parseValue<Rational>("1/3")})};
  auto reference = *spec::eval(g, inputs, {});
  EXPECT_EQ(compileChecked(g, inputs, {})->context()[2].values, reference[2].values);
  EXPECT_EQ((*SavedGraph<Rational>::lowerChecked(g, inputs, {})->context)[2].values, reference[2].values);
  EXPECT_EQ((*lowerToTapeChecked(g, inputs, {})->context)[2].values, reference[2].values);
  EXPECT_EQ(lowerToArrayChecked(g, inputs, {})->tape.nodes[2].value.values, reference[2].values);
}

// --- The single-output pass (docs/semantics.md §1.9) ----------------------------------------------------

struct SingleOutputGraph {
  Graph<Rational> graph;
  std::size_t a, unused, detached, out;
};

// x; a = neg(x); unused = square(x); detached = detach(a); out = add(a, detached).
SingleOutputGraph singleOutputGraph() {
  auto b = *GraphBuilder<Rational>::create({{2}});
  SingleOutputGraph s;
  s.a = *b.add(OpKind::neg, {0});
  s.unused = *b.add(OpKind::square, {0});
  s.detached = *b.add(OpKind::detach, {s.a});
  s.out = *b.add(OpKind::add, {s.a, s.detached});
  s.graph = std::move(b).build();
  return s;
}

TEST(SingleOutput, VisitsOnlyAncestorsThroughCertifiedSupport) {
  SingleOutputGraph s = singleOutputGraph();
  auto compiled = compileChecked(s.graph, {Tensor<Rational>({2}, {1, 2})}, {});
  ASSERT_TRUE(compiled);
  auto result = compiled->backwardDenseAllFrom(s.out, Tensor<Rational>({2}, {3, 5}));
  ASSERT_TRUE(result);
  // out, detached (an ancestor with no terms), and a; never `unused`.
  EXPECT_EQ(result->programsRun, 3u);
  EXPECT_FALSE(result->gradients.isStored(s.unused));
  EXPECT_EQ(result->gradients.at(s.unused).values, (std::vector<Rational>{0, 0}));
  EXPECT_EQ(result->gradients.at(0).values, (std::vector<Rational>{-3, -5}));
  EXPECT_EQ(result->gradients.storedCount(), 4u);  // x, a, detached, out
}

TEST(SingleOutput, EqualsTheDensePassOnASingleSeed) {
  SingleOutputGraph s = singleOutputGraph();
  Pack<Rational> inputs{Tensor<Rational>({2}, {1, 2})};
  auto compiled = compileChecked(s.graph, inputs, {});
  for (std::size_t output = 0; output < s.graph.positionCount(); ++output) {
    Tensor<Rational> seed({2}, {Rational(7), *parseValue<Rational>("-1/2")});
    Pack<Rational> pack = zeroSeedPack(s.graph);
    pack[output] = seed;
    auto single = compiled->backwardDenseAllFrom(output, seed);
    ASSERT_TRUE(single);
    Pack<Rational> dense = *compiled->backwardDenseFrom(pack);
    Pack<Rational> viewed = single->gradients.materialize();
    for (std::size_t p = 0; p < dense.size(); ++p) EXPECT_EQ(viewed[p].values, dense[p].values) << output << " " << p;
  }
}

TEST(SingleOutput, OpaqueNodesMakeThePrefixRunInFull) {
  auto b = *GraphBuilder<Rational>::create({{}});
  std::size_t a = *b.add(OpKind::neg, {0});
  std::size_t unusedBelow = *b.add(OpKind::square, {0});
  std::size_t opaque = *b.addOpaque("const3", {a});
  std::size_t unusedAbove = *b.add(OpKind::square, {0});
  std::size_t out = *b.add(OpKind::neg, {unusedAbove});
  Graph<Rational> g = std::move(b).build();
  auto compiled = compileChecked(g, {scalarOf(Rational(2))}, {});
  ASSERT_EQ(compiled->highestOpaque(), opaque);
  auto result = compiled->backwardDenseAllFrom(out, scalarOf(Rational(1)));
  // out and unusedAbove (its ancestor), then everything at or below the opaque node.
  EXPECT_EQ(result->programsRun, 5u);
  // const3 gives 3 everywhere below it, whatever its cotangent (here zero).
  EXPECT_EQ(result->gradients.at(unusedBelow)[0], Rational(3));
  auto fromAbove = compiled->backwardDenseAllFrom(unusedAbove, scalarOf(Rational(1)));
  EXPECT_EQ(fromAbove->programsRun, 4u);  // unusedAbove, opaque, unusedBelow, a
  (void)unusedBelow;
}

TEST(SingleOutput, RepeatedCallsAreIndependentAndIdentical) {
  SingleOutputGraph s = singleOutputGraph();
  auto compiled = compileChecked(s.graph, {Tensor<Rational>({2}, {1, 2})}, {});
  auto first = compiled->backwardDenseAllFrom(s.out, Tensor<Rational>({2}, {1, 1}))->gradients.materialize();
  auto other = compiled->backwardDenseAllFrom(s.unused, Tensor<Rational>({2}, {1, 1}));
  EXPECT_EQ(other->programsRun, 1u);
  EXPECT_FALSE(other->gradients.isStored(s.a));
  auto again = compiled->backwardDenseAllFrom(s.out, Tensor<Rational>({2}, {1, 1}))->gradients.materialize();
  for (std::size_t p = 0; p < first.size(); ++p) EXPECT_EQ(first[p].values, again[p].values);
}

TEST(SingleOutput, CarriersWithoutStorageEqualityRunTheDensePass) {
  auto b = *GraphBuilder<RationalNoEq>::create({{}});
  ASSERT_TRUE(b.add(OpKind::neg, {0}));
  ASSERT_TRUE(b.add(OpKind::neg, {0}));
  Graph<RationalNoEq> g = std::move(b).build();
  auto compiled = compileChecked(g, {scalarOf(RationalNoEq(Rational(1)))}, {});
  auto result = compiled->backwardDenseAllFrom(1, scalarOf(RationalNoEq(Rational(1))));
  EXPECT_EQ(result->programsRun, 2u);
  EXPECT_EQ(result->gradients.storedCount(), 3u);
}

// Whether two packs hold the same bits (so +0 and −0 differ, and NaN payloads count).
template <class T>
bool sameBits(const Pack<T>& a, const Pack<T>& b) {
  using Bits = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  if (a.size() != b.size()) return false;
  for (std::size_t p = 0; p < a.size(); ++p) {
    if (a[p].shape != b[p].shape) return false;
    for (std::size_t i = 0; i < a[p].size(); ++i)
      if (std::bit_cast<Bits>(a[p][i]) != std::bit_cast<Bits>(b[p][i])) return false;
  }
  return true;
}

// Values with −0s and +0s among them (products of ±0 decide which zero a sum keeps), cycling
// through a pattern from `offset`.
template <class T>
Tensor<T> signedZeroValues(const Shape& shape, std::size_t offset) {
  static const T pattern[] = {T(1), -T(0), T(2), T(0), T(-3), -T(0), T(0.5), T(-1), -T(0), T(3), T(0)};
  std::vector<T> values(elementCount(shape));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = pattern[(i + offset) % std::size(pattern)];
  return Tensor<T>(shape, std::move(values));
}

// The compiled dense pass from `seed` at the last node, and from that seed pack with W (input 0)
// seeded too, each bit for bit as the reference's dense order.
template <class T>
void expectDensePassesMatchTheReference(const Graph<T>& g, const Pack<T>& inputs, const Tensor<T>& seed) {
  auto compiled = compileChecked(g, inputs, {});
  ASSERT_TRUE(compiled);
  auto context = spec::eval(g, inputs, {});
  ASSERT_TRUE(context);
  const std::size_t last = g.positionCount() - 1;
  Pack<T> seeds = singleSeedPack(g, last, seed);
  auto single = compiled->backwardDenseAllFrom(last, seed);
  ASSERT_TRUE(single);
  EXPECT_TRUE(sameBits(single->gradients.materialize(), spec::backpropAllCtx(g, *context, {}, seeds)));
  seeds[0] = signedZeroValues<T>(inputs[0].shape, 1);  // W's slot is not all +0
  auto dense = compiled->backwardDenseFrom(seeds);
  ASSERT_TRUE(dense);
  EXPECT_TRUE(sameBits(*dense, spec::backpropAllCtx(g, *context, {}, seeds)));
}

// linear adds W's term straight into W's slot (Linear::termsInto, in vector lanes and then one by
// one for a row's last columns): into a slot that holds only +0, onto a seed, and after a pending
// +0 of the dense order. Its −0 products must become +0 where the dense order adds them to +0.
template <class T>
void expectInPlaceTermsMatchTheReference() {
  for (auto [m, k] : {std::pair<std::size_t, std::size_t>{2, 2}, {3, 9}, {9, 9}, {2, 16}, {5, 17}, {17, 17}, {1, 35}}) {
    SCOPED_TRACE(::testing::Message() << "W [" << m << ", " << k << "]");
    const Pack<T> inputs{signedZeroValues<T>({m, k}, 0), signedZeroValues<T>({k}, 3), signedZeroValues<T>({m}, 5)};
    const Tensor<T> seed = signedZeroValues<T>({m}, 7);
    auto once = *GraphBuilder<T>::create({{m, k}, {k}, {m}});
    ASSERT_TRUE(once.add(OpKind::linear, {0, 1, 2}));
    expectDensePassesMatchTheReference(std::move(once).build(), inputs, seed);
    if (m != k) continue;  // the second linear reads the first's output as its x
    auto twice = *GraphBuilder<T>::create({{m, k}, {k}, {m}});
    ASSERT_TRUE(twice.add(OpKind::linear, {0, 1, 2}));  // 3
    ASSERT_TRUE(twice.add(OpKind::neg, {3}));           // 4: a visit that leaves W's +0 pending
    ASSERT_TRUE(twice.add(OpKind::linear, {0, 4, 2}));  // 5
    expectDensePassesMatchTheReference(std::move(twice).build(), inputs, seed);
  }
}

TEST(DensePass, ATermAddedInPlaceMatchesTheReferenceBitForBit) {
  expectInPlaceTermsMatchTheReference<double>();
  expectInPlaceTermsMatchTheReference<float>();
}

TEST(SingleOutput, RejectsABadOutputOrSeed) {
  SingleOutputGraph s = singleOutputGraph();
  auto compiled = compileChecked(s.graph, {Tensor<Rational>({2}, {1, 2})}, {});
  EXPECT_EQ(compiled->backwardDenseAllFrom(9, Tensor<Rational>({2}, {1, 1})).error().message,
            "output position 9 is out of range (the graph has 5 positions)");
  EXPECT_EQ(compiled->backwardDenseAllFrom(1, scalarOf(Rational(1))).error().message,
            "seed has shape [], position 1 has shape [2]");
  EXPECT_EQ(compiled->backwardDenseFrom({}).error().message, "a seed pack needs 5 tensors (one per position), got 0");
}

}  // namespace
}  // namespace tc
