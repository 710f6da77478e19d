// Unit tests of the op library (docs/semantics.md §2): for every op its forward value, its terms in
// declared order, its validation, its shape-rule errors and the bit-level conventions that
// decide IEEE results. Every expected value below is computed by hand (the computation is in
// the comment next to it) or, for transcendental functions, from the formula docs/semantics.md §2 fixes.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/carriers/carrier.h"
#include "core/graph/builder.h"
#include "core/graph/node_program.h"
#include "core/ops/library.hpp"
#include "core/spec/reference.h"
#include "tests/support/hand_made.h"

namespace {

using tc::Attrs;
using tc::Carrier;
using tc::Context;
using tc::Data;
using tc::DataSchema;
using tc::Graph;
using tc::GraphBuilder;
using tc::LocalContribution;
using tc::ModP;
using tc::OpKind;
using tc::Pack;
using tc::Shape;
using tc::Tensor;
using tc::Term;
using tc::Terms;
using tc::testing::scaleBy;
using Q = tc::Rational;

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

//! An exact rational written as in a case file: "3", "-3/4", "1.25".
Q q(std::string_view text) {
  auto value = tc::parseValue<Q>(text);
  if (!value) throw std::invalid_argument(value.error().message);
  return *value;
}

Tensor<Q> qt(const Shape& shape, std::initializer_list<std::string_view> values) {
  std::vector<Q> v;
  for (std::string_view text : values) v.push_back(q(text));
  return Tensor<Q>(shape, std::move(v));
}

Tensor<double> dt(const Shape& shape, std::vector<double> values) {
  return Tensor<double>(shape, std::move(values));
}

//! ModP values from (possibly negative) integers.
Tensor<ModP> mt(const Shape& shape, std::initializer_list<std::int64_t> values) {
  std::vector<ModP> v;
  for (std::int64_t n : values) v.push_back(ModP::fromInt(n));
  return Tensor<ModP>(shape, std::move(v));
}

//! ModP values given by their residues in [0, p).
Tensor<ModP> mr(const Shape& shape, std::initializer_list<std::uint64_t> residues) {
  std::vector<ModP> v;
  for (std::uint64_t r : residues) v.push_back(ModP::fromResidue(r));
  return Tensor<ModP>(shape, std::move(v));
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double k2p53 = 9007199254740992.0;  // 2^53: 2^53 + 1 rounds back to 2^53

// ---------------------------------------------------------------------------------------------
// Comparisons: exact for Rational and ModP, bit patterns for double (any two NaNs are equal)
// ---------------------------------------------------------------------------------------------

template <class T>
std::string show(const Tensor<T>& t) {
  std::string s = tc::formatShape(t.shape) + " {";
  for (std::size_t i = 0; i < t.size(); ++i) s += (i ? ", " : "") + Carrier<T>::format(t[i]);
  return s + "}";
}

template <class T>
::testing::AssertionResult sameTensor(const char* actualText, const char* expectedText, const Tensor<T>& actual,
                                      const Tensor<T>& expected) {
  bool same = actual.shape == expected.shape && actual.size() == expected.size();
  for (std::size_t i = 0; same && i < actual.size(); ++i) same = Carrier<T>::same(actual[i], expected[i]);
  if (same) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << actualText << " is " << show(actual) << "\n" << expectedText << " is "
                                       << show(expected);
}

#define EXPECT_TENSOR(actual, expected) EXPECT_PRED_FORMAT2(sameTensor, actual, expected)

//! The terms, in declared order: argument index and value of each.
template <class T>
::testing::AssertionResult termsAre(const Terms<T>& actual, const std::vector<Term<T>>& expected) {
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure() << actual.size() << " terms, expected " << expected.size();
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (actual[i].arg != expected[i].arg)
      return ::testing::AssertionFailure() << "term " << i << " targets argument " << actual[i].arg << ", expected "
                                           << expected[i].arg;
    if (auto same = sameTensor("actual", "expected", actual[i].value, expected[i].value); !same)
      return ::testing::AssertionFailure() << "term " << i << ": " << same.message();
  }
  return ::testing::AssertionSuccess();
}

//! A compact node's local sums, one per targeted position, ascending.
template <class T>
::testing::AssertionResult supportIs(const LocalContribution<T>& actual,
                                     const std::vector<std::pair<std::size_t, Tensor<T>>>& expected) {
  if (actual.isDense) return ::testing::AssertionFailure() << "the contribution is dense";
  if (actual.support.size() != expected.size())
    return ::testing::AssertionFailure() << actual.support.size() << " support entries, expected "
                                         << expected.size();
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (actual.support[i].first != expected[i].first)
      return ::testing::AssertionFailure() << "entry " << i << " is position " << actual.support[i].first
                                           << ", expected " << expected[i].first;
    if (auto same = sameTensor("actual", "expected", actual.support[i].second, expected[i].second); !same)
      return ::testing::AssertionFailure() << "position " << expected[i].first << ": " << same.message();
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------------
// Attributes of the ops that take some
// ---------------------------------------------------------------------------------------------

template <class T>
Attrs<T> clampTo(std::optional<T> lo, std::optional<T> hi) {
  Attrs<T> a;
  a.lo = std::move(lo);
  a.hi = std::move(hi);
  return a;
}
template <class T>
Attrs<T> alongAxis(std::size_t axis) {
  Attrs<T> a;
  a.axis = axis;
  return a;
}
template <class T>
Attrs<T> sliceRows(std::size_t start, std::size_t len) {
  Attrs<T> a;
  a.start = start;
  a.len = len;
  return a;
}
template <class T>
Attrs<T> toShape(Shape shape) {
  Attrs<T> a;
  a.shape = std::move(shape);
  return a;
}
template <class T>
Attrs<T> constValues(Shape shape, std::vector<T> values) {
  Attrs<T> a;
  a.shape = std::move(shape);
  a.values = std::move(values);
  return a;
}
template <class T>
Attrs<T> dataKey(std::string key) {
  Attrs<T> a;
  a.key = std::move(key);
  return a;
}

// ---------------------------------------------------------------------------------------------
// One-node graphs
// ---------------------------------------------------------------------------------------------

//! A graph whose inputs are `inputs` followed by one node of the op under test.
template <class T>
struct NodeCase {
  Pack<T> inputs{};
  Attrs<T> attrs{};
  std::vector<std::size_t> args{};  //!< empty: every input, in order
  DataSchema schema{};
  Data<T> data{};
  tc::Conventions conventions{};  //!< the graph's conventions (default: the specification's)
};

//! The built and evaluated graph, with the node's terms and local contribution on demand.
template <class T>
struct OneNode {
  Graph<T> graph;
  Data<T> data;
  Context<T> context;

  std::size_t position() const { return graph.positionCount() - 1; }
  const Tensor<T>& out() const { return context.back(); }

  //! tc::nodeTerms: the terms in declared order.
  Terms<T> terms(const Tensor<T>& ct) const {
    const tc::Node<T>& node = graph.nodeAt(position());
    tc::ArgValues<T> args;
    for (std::size_t p : node.args) args.push_back(&context[p]);
    Terms<T> terms;
    tc::nodeTerms(node.op, tc::callOf<T>(graph, node, args, data), out(), ct, terms);
    return terms;
  }
  //! tc::localContribution: local sums per targeted position, ascending.
  LocalContribution<T> local(const Tensor<T>& ct) const {
    return tc::localContribution<T>(graph, context, data, position(), ct);
  }
};

template <class T>
tc::Result<OneNode<T>> tryRun(OpKind kind, NodeCase<T> c) {
  std::vector<Shape> shapes;
  for (const auto& input : c.inputs) shapes.push_back(input.shape);
  std::vector<std::size_t> args = c.args;
  if (args.empty()) {
    args.resize(c.inputs.size());
    std::iota(args.begin(), args.end(), std::size_t{0});
  }
  auto builder = GraphBuilder<T>::create(shapes, std::move(c.schema));
  if (!builder) return std::unexpected(builder.error());
  if (auto added = builder->add(kind, args, std::move(c.attrs)); !added) return std::unexpected(added.error());
  Graph<T> graph = std::move(*builder).build();
  graph.conventions = c.conventions;
  auto context = tc::spec::eval(graph, c.inputs, c.data);
  if (!context) return std::unexpected(context.error());
  return OneNode<T>{std::move(graph), std::move(c.data), std::move(*context)};
}

//! Builds and evaluates the one-node graph; any error fails the test.
template <class T>
OneNode<T> run(OpKind kind, NodeCase<T> c) {
  auto result = tryRun(kind, std::move(c));
  if (!result) throw std::runtime_error("unexpected error: " + result.error().message);
  return std::move(*result);
}

//! The error of eval on the one-node graph (building must succeed).
template <class T>
std::string evalError(OpKind kind, NodeCase<T> c) {
  auto result = tryRun(kind, std::move(c));
  return result ? std::string("<no error>") : result.error().message;
}

//! The error of adding a node of `kind` over inputs of the given shapes (every input, in order).
template <class T>
std::string buildError(OpKind kind, std::vector<Shape> inputs, Attrs<T> attrs = {}, DataSchema schema = {}) {
  std::vector<std::size_t> args(inputs.size());
  std::iota(args.begin(), args.end(), std::size_t{0});
  auto builder = GraphBuilder<T>::create(std::move(inputs), std::move(schema));
  if (!builder) return "create failed: " + builder.error().message;
  auto added = builder->add(kind, std::move(args), std::move(attrs));
  return added ? std::string("<no error>") : added.error().message;
}

// =============================================================================================
// add, sub
// =============================================================================================

TEST(Ops, Add_ForwardAndTerms) {
  auto n = run<Q>(OpKind::add, {.inputs = {qt({2}, {"1", "-1/2"}), qt({2}, {"1/3", "2"})}});
  EXPECT_TENSOR(n.out(), qt({2}, {"4/3", "3/2"}));  // 1 + 1/3, -1/2 + 2
  auto ct = qt({2}, {"5", "-7/4"});
  EXPECT_TRUE(termsAre(n.terms(ct), {{0, ct}, {1, ct}}));
}

TEST(Ops, Add_RepeatedArgumentFormsOneLocalSum) {
  // add(x, x): two terms on position 0, added locally: ct + ct.
  auto n = run<Q>(OpKind::add, {.inputs = {qt({1}, {"3"})}, .args = {0, 0}});
  EXPECT_TENSOR(n.out(), qt({1}, {"6"}));
  EXPECT_TRUE(supportIs(n.local(qt({1}, {"5/2"})), {{0, qt({1}, {"5"})}}));
}

TEST(Ops, Add_ShapeAndArityErrors) {
  EXPECT_EQ(buildError<Q>(OpKind::add, {Shape{2}, Shape{3}}),
            "node 2 (add): arguments have shapes [2] and [3]; they must be equal");
  EXPECT_EQ(buildError<Q>(OpKind::add, {Shape{2}}), "node 1 (add): takes 2 arguments, got 1");
}

TEST(Ops, Sub_ForwardAndTerms) {
  auto n = run<Q>(OpKind::sub, {.inputs = {qt({2}, {"1", "1/2"}), qt({2}, {"1/3", "2"})}});
  EXPECT_TENSOR(n.out(), qt({2}, {"2/3", "-3/2"}));  // 1 - 1/3, 1/2 - 2
  EXPECT_TRUE(termsAre(n.terms(qt({2}, {"5", "-7/4"})), {{0, qt({2}, {"5", "-7/4"})}, {1, qt({2}, {"-5", "7/4"})}}));
}

TEST(Ops, Sub_SecondTermNegatesZeroCotangentOnDouble) {
  // [b: -ct]: a negation, so ct = +0 gives -0 (bit pattern).
  auto n = run<double>(OpKind::sub, {.inputs = {dt({1}, {1.0}), dt({1}, {1.0})}});
  EXPECT_TENSOR(n.out(), dt({1}, {0.0}));
  EXPECT_TRUE(termsAre(n.terms(dt({1}, {0.0})), {{0, dt({1}, {0.0})}, {1, dt({1}, {-0.0})}}));
}

TEST(Ops, Sub_ShapeError) {
  EXPECT_EQ(buildError<Q>(OpKind::sub, {Shape{2, 1}, Shape{2}}),
            "node 2 (sub): arguments have shapes [2, 1] and [2]; they must be equal");
}

// =============================================================================================
// mul, div
// =============================================================================================

TEST(Ops, Mul_ForwardAndTerms) {
  auto n = run<Q>(OpKind::mul, {.inputs = {qt({2}, {"2", "-1/3"}), qt({2}, {"3/4", "6"})}});
  EXPECT_TENSOR(n.out(), qt({2}, {"3/2", "-2"}));
  // ct = [1/2, 5]: [a: ct·b] = [3/8, 30], [b: ct·a] = [1, -5/3].
  EXPECT_TRUE(termsAre(n.terms(qt({2}, {"1/2", "5"})), {{0, qt({2}, {"3/8", "30"})}, {1, qt({2}, {"1", "-5/3"})}}));
}

TEST(Ops, Mul_LocalContributionIsAscendingByPosition) {
  // mul(y, x) with x at position 0 and y at position 1: declared order targets y then x, the
  // local contribution lists position 0 first.
  auto n = run<Q>(OpKind::mul, {.inputs = {qt({1}, {"2"}), qt({1}, {"5"})}, .args = {1, 0}});
  auto ct = qt({1}, {"3"});
  EXPECT_TRUE(termsAre(n.terms(ct), {{0, qt({1}, {"6"})}, {1, qt({1}, {"15"})}}));  // ct·x, ct·y
  EXPECT_TRUE(supportIs(n.local(ct), {{0, qt({1}, {"15"})}, {1, qt({1}, {"6"})}}));
}

TEST(Ops, Mul_SameArgumentTwiceAddsBothTerms) {
  // mul(x, x) at x = 3, ct = 1: ct·x + ct·x = 6 at position 0.
  auto n = run<Q>(OpKind::mul, {.inputs = {qt({1}, {"3"})}, .args = {0, 0}});
  EXPECT_TENSOR(n.out(), qt({1}, {"9"}));
  EXPECT_TRUE(supportIs(n.local(qt({1}, {"1"})), {{0, qt({1}, {"6"})}}));
}

TEST(Ops, Mul_ModP) {
  constexpr std::uint64_t p = ModP::kPrime;
  constexpr std::uint64_t half = std::uint64_t{1} << 60;  // 2^60 · 2 = 2^61 = p + 1 ≡ 1
  auto n = run<ModP>(OpKind::mul, {.inputs = {mr({3}, {3, p - 1, half}), mt({3}, {5, 7, 2})}});
  EXPECT_TENSOR(n.out(), mr({3}, {15, p - 7, 1}));
  // ct = [2, 1, 1]: [a: ct·b] = [10, 7, 2], [b: ct·a] = [6, -1, 2^60].
  EXPECT_TRUE(termsAre(n.terms(mt({3}, {2, 1, 1})), {{0, mt({3}, {10, 7, 2})}, {1, mr({3}, {6, p - 1, half})}}));
}

TEST(Ops, Div_ForwardAndTerms) {
  auto n = run<Q>(OpKind::div, {.inputs = {qt({2}, {"1", "-3"}), qt({2}, {"2", "3/4"})}});
  EXPECT_TENSOR(n.out(), qt({2}, {"1/2", "-4"}));
  // ct = [4, 1/2]. [a: ct/b] = [4/2, (1/2)/(3/4)] = [2, 2/3].
  // [b: -((ct·a)/(b·b))] = [-(4/4), -((-3/2)/(9/16))] = [-1, -(-8/3)] = [-1, 8/3].
  EXPECT_TRUE(termsAre(n.terms(qt({2}, {"4", "1/2"})), {{0, qt({2}, {"2", "2/3"})}, {1, qt({2}, {"-1", "8/3"})}}));
}

TEST(Ops, Div_ModP) {
  constexpr std::uint64_t p = ModP::kPrime;
  // p ≡ 1 (mod 9): 1/3 = (2p + 1)/3, 1/9 = (8p + 1)/9, 2/3 = 2·(1/3) - p.
  constexpr std::uint64_t third = 1537228672809129301;     // 3 · third = 2p + 1
  constexpr std::uint64_t ninth = 2049638230412172401;     // 9 · ninth = 8p + 1
  constexpr std::uint64_t twoThirds = 768614336404564651;  // 3 · twoThirds = p + 2
  auto n = run<ModP>(OpKind::div, {.inputs = {mt({2}, {1, 6}), mt({2}, {3, 3})}});
  EXPECT_TENSOR(n.out(), mr({2}, {third, 2}));
  EXPECT_EQ(n.out()[0] * ModP::fromInt(3), ModP::fromInt(1));
  // ct = [1, 1]: [a: ct/b] = [1/3, 1/3]; [b: -((ct·a)/(b·b))] = [-(1/9), -(6/9)] = [-(1/9), -(2/3)].
  EXPECT_TRUE(termsAre(n.terms(mt({2}, {1, 1})),
                       {{0, mr({2}, {third, third})}, {1, mr({2}, {p - ninth, p - twoThirds})}}));
}

TEST(Ops, Div_ZeroDivisorRejectedOnExactCarriers) {
  EXPECT_EQ(evalError<Q>(OpKind::div, {.inputs = {qt({2}, {"1", "2"}), qt({2}, {"1", "0"})}}),
            "node 2 (div): divisor contains 0");
  EXPECT_EQ(evalError<ModP>(OpKind::div, {.inputs = {mt({1}, {1}), mt({1}, {0})}}), "node 2 (div): divisor contains 0");
  // A zero dividend is fine.
  EXPECT_EQ(evalError<Q>(OpKind::div, {.inputs = {qt({1}, {"0"}), qt({1}, {"2"})}}), "<no error>");
}

TEST(Ops, Div_ZeroDivisorFollowsIeeeOnDouble) {
  auto n = run<double>(OpKind::div, {.inputs = {dt({2}, {1.0, 1.0}), dt({2}, {0.0, -0.0})}});
  EXPECT_TENSOR(n.out(), dt({2}, {kInf, -kInf}));
  // [a: ct/b] with ct = 1: [inf, -inf]; [b: -((1·1)/(0·0))] = -(1/+0) = -inf for both.
  EXPECT_TRUE(termsAre(n.terms(dt({2}, {1.0, 1.0})), {{0, dt({2}, {kInf, -kInf})}, {1, dt({2}, {-kInf, -kInf})}}));
}

// =============================================================================================
// max, min
// =============================================================================================

TEST(Ops, Max_ForwardAndTerms) {
  auto n = run<Q>(OpKind::max, {.inputs = {qt({3}, {"3", "-1", "2"}), qt({3}, {"1", "5", "2"})}});
  EXPECT_TENSOR(n.out(), qt({3}, {"3", "5", "2"}));
  // a wins, b wins, tie: ct = [4, 6, 1/3] → a gets [4, 0, 1/6], b gets [0, 6, 1/6].
  EXPECT_TRUE(termsAre(n.terms(qt({3}, {"4", "6", "1/3"})),
                       {{0, qt({3}, {"4", "0", "1/6"})}, {1, qt({3}, {"0", "6", "1/6"})}}));
}

TEST(Ops, Min_ForwardAndTerms) {
  auto n = run<Q>(OpKind::min, {.inputs = {qt({3}, {"3", "-1", "2"}), qt({3}, {"1", "5", "2"})}});
  EXPECT_TENSOR(n.out(), qt({3}, {"1", "-1", "2"}));
  // b wins, a wins, tie.
  EXPECT_TRUE(termsAre(n.terms(qt({3}, {"4", "6", "1/3"})),
                       {{0, qt({3}, {"0", "6", "1/6"})}, {1, qt({3}, {"4", "0", "1/6"})}}));
}

TEST(Ops, Max_RepeatedArgumentTiesAndSumsBackToCt) {
  // max(x, x) is a tie everywhere: ct/2 + ct/2 = ct at x.
  auto n = run<Q>(OpKind::max, {.inputs = {qt({1}, {"7"})}, .args = {0, 0}});
  EXPECT_TENSOR(n.out(), qt({1}, {"7"}));
  EXPECT_TRUE(supportIs(n.local(qt({1}, {"3"})), {{0, qt({1}, {"3"})}}));
}

TEST(Ops, Max_LoserGetsCarrierZeroOnDouble) {
  // The loser gets +0, not ct·0: with ct = -1 that is +0 (not -0), with ct = inf +0 (not NaN).
  auto n = run<double>(OpKind::max, {.inputs = {dt({2}, {2.0, 2.0}), dt({2}, {1.0, 1.0})}});
  EXPECT_TENSOR(n.out(), dt({2}, {2.0, 2.0}));
  EXPECT_TRUE(termsAre(n.terms(dt({2}, {-1.0, kInf})), {{0, dt({2}, {-1.0, kInf})}, {1, dt({2}, {0.0, 0.0})}}));
}

TEST(Ops, Min_LoserGetsCarrierZeroOnDouble) {
  auto n = run<double>(OpKind::min, {.inputs = {dt({2}, {2.0, 2.0}), dt({2}, {1.0, 1.0})}});
  EXPECT_TENSOR(n.out(), dt({2}, {1.0, 1.0}));
  EXPECT_TRUE(termsAre(n.terms(dt({2}, {-1.0, -kInf})), {{0, dt({2}, {0.0, 0.0})}, {1, dt({2}, {-1.0, -kInf})}}));
}

TEST(Ops, Max_UnorderedIsATieAndForwardIsNaN) {
  auto n = run<double>(OpKind::max, {.inputs = {dt({2}, {kNan, 1.0}), dt({2}, {1.0, kNan})}});
  EXPECT_TRUE(std::isnan(n.out()[0]) && std::isnan(n.out()[1]));
  // Unordered counts as a tie: each side gets ct/2.
  EXPECT_TRUE(termsAre(n.terms(dt({2}, {2.0, 6.0})), {{0, dt({2}, {1.0, 3.0})}, {1, dt({2}, {1.0, 3.0})}}));
}

TEST(Ops, Min_UnorderedIsATieAndForwardIsNaN) {
  auto n = run<double>(OpKind::min, {.inputs = {dt({2}, {kNan, 1.0}), dt({2}, {1.0, kNan})}});
  EXPECT_TRUE(std::isnan(n.out()[0]) && std::isnan(n.out()[1]));
  EXPECT_TRUE(termsAre(n.terms(dt({2}, {2.0, -6.0})), {{0, dt({2}, {1.0, -3.0})}, {1, dt({2}, {1.0, -3.0})}}));
}

TEST(Ops, Max_EqualSignedZerosReturnTheFirstArgument) {
  // -0 == +0 is a tie, and a tie returns a.
  auto mx = run<double>(OpKind::max, {.inputs = {dt({1}, {-0.0}), dt({1}, {0.0})}});
  EXPECT_TENSOR(mx.out(), dt({1}, {-0.0}));
  EXPECT_TRUE(termsAre(mx.terms(dt({1}, {1.0})), {{0, dt({1}, {0.5})}, {1, dt({1}, {0.5})}}));
  auto mn = run<double>(OpKind::min, {.inputs = {dt({1}, {0.0}), dt({1}, {-0.0})}});
  EXPECT_TENSOR(mn.out(), dt({1}, {0.0}));
}

TEST(Ops, Max_ShapeAndCapabilityErrors) {
  EXPECT_EQ(buildError<Q>(OpKind::max, {Shape{2}, Shape{1}}),
            "node 2 (max): arguments have shapes [2] and [1]; they must be equal");
  EXPECT_EQ(buildError<ModP>(OpKind::max, {Shape{2}, Shape{2}}),
            "node 2 (max): needs an ordered field, which the modp carrier does not have");
  EXPECT_EQ(buildError<ModP>(OpKind::min, {Shape{2}, Shape{2}}),
            "node 2 (min): needs an ordered field, which the modp carrier does not have");
}

// =============================================================================================
// neg, square, scale, inv
// =============================================================================================

TEST(Ops, Neg_ForwardAndTerm) {
  auto n = run<Q>(OpKind::neg, {.inputs = {qt({2}, {"2", "-1/3"})}});
  EXPECT_TENSOR(n.out(), qt({2}, {"-2", "1/3"}));
  EXPECT_TRUE(termsAre(n.terms(qt({2}, {"5", "-1"})), {{0, qt({2}, {"-5", "1"})}}));
}

TEST(Ops, Neg_ZeroCotangentGivesNegativeZeroOnDouble) {
  auto n = run<double>(OpKind::neg, {.inputs = {dt({1}, {0.0})}});
  EXPECT_TENSOR(n.out(), dt({1}, {-0.0}));
  EXPECT_TRUE(termsAre(n.terms(dt({1}, {0.0})), {{0, dt({1}, {-0.0})}}));
}

TEST(Ops, Square_ForwardAndTerm) {
  auto n = run<Q>(OpKind::square, {.inputs = {qt({2}, {"3", "-1/2"})}});
  EXPECT_TENSOR(n.out(), qt({2}, {"9", "1/4"}));
  // [x: 2x·ct] with ct = [1, 4]: [6, -4].
  EXPECT_TRUE(termsAre(n.terms(qt({2}, {"1", "4"})), {{0, qt({2}, {"6", "-4"})}}));
}

TEST(Ops, Scale_ForwardAndTerm) {
  auto n = run<Q>(OpKind::scale, {.inputs = {qt({2}, {"2", "1/3"})}, .attrs = scaleBy<Q>(q("-3/2"))});
  EXPECT_TENSOR(n.out(), qt({2}, {"-3", "-1/2"}));
  // [x: c·ct] with ct = [4, -2]: [-6, 3].
  EXPECT_TRUE(termsAre(n.terms(qt({2}, {"4", "-2"})), {{0, qt({2}, {"-6", "3"})}}));
}

TEST(Ops, Scale_MissingAttribute) {
  EXPECT_EQ(buildError<Q>(OpKind::scale, {Shape{2}}), "node 1 (scale): missing attribute 'c'");
}

TEST(Ops, Inv_ForwardAndTerm) {
  auto n = run<Q>(OpKind::inv, {.inputs = {qt({2}, {"2", "-1/3"})}});
  EXPECT_TENSOR(n.out(), qt({2}, {"1/2", "-3"}));
  // [x: -(ct/(x·x))] with ct = [8, 1]: [-(8/4), -(1/(1/9))] = [-2, -9].
  EXPECT_TRUE(termsAre(n.terms(qt({2}, {"8", "1"})), {{0, qt({2}, {"-2", "-9"})}}));
}

TEST(Ops, Inv_ZeroRejectedOnExactCarriers) {
  EXPECT_EQ(evalError<Q>(OpKind::inv, {.inputs = {qt({2}, {"1", "0"})}}), "node 1 (inv): input contains 0");
  EXPECT_EQ(evalError<ModP>(OpKind::inv, {.inputs = {mt({1}, {0})}}), "node 1 (inv): input contains 0");
}

TEST(Ops, Inv_ZeroFollowsIeeeOnDouble) {
  auto n = run<double>(OpKind::inv, {.inputs = {dt({2}, {0.0, -0.0})}});
  EXPECT_TENSOR(n.out(), dt({2}, {kInf, -kInf}));
  // -(1/(0·0)) = -(1/+0) = -inf at both; a zero cotangent gives -(0/0) = NaN.
  EXPECT_TRUE(termsAre(n.terms(dt({2}, {1.0, 1.0})), {{0, dt({2}, {-kInf, -kInf})}}));
  EXPECT_TRUE(termsAre(n.terms(dt({2}, {0.0, 0.0})), {{0, dt({2}, {kNan, kNan})}}));
}

// =============================================================================================
// relu, abs, clamp
// =============================================================================================

TEST(Ops, Relu_ForwardAndTermWithKinkAtZero) {
  auto n = run<Q>(OpKind::relu, {.inputs = {qt({3}, {"-2", "0", "3/2"})}});
  EXPECT_TENSOR(n.out(), qt({3}, {"0", "0", "3/2"}));
  EXPECT_TRUE(termsAre(n.terms(qt({3}, {"5", "5", "5"})), {{0, qt({3}, {"0", "0", "5"})}}));  // relu'(0) = 0
}

TEST(Ops, Relu_ZeroBySelectionIsPositiveZeroOnDouble) {
  auto n = run<double>(OpKind::relu, {.inputs = {dt({4}, {-1.0, 0.0, -0.0, 2.0})}});
  EXPECT_TENSOR(n.out(), dt({4}, {0.0, 0.0, 0.0, 2.0}));  // x > 0 ? x : +0, so relu(-0) = +0
  EXPECT_TRUE(termsAre(n.terms(dt({4}, {-1.0, -1.0, -1.0, -1.0})), {{0, dt({4}, {0.0, 0.0, 0.0, -1.0})}}));
  EXPECT_TRUE(termsAre(n.terms(dt({4}, {kInf, kInf, kInf, kInf})), {{0, dt({4}, {0.0, 0.0, 0.0, kInf})}}));
}

TEST(Ops, Relu_RejectedOnModP) {
  EXPECT_EQ(buildError<ModP>(OpKind::relu, {Shape{2}}),
            "node 1 (relu): needs an ordered carrier, which the modp carrier does not have");
}

TEST(Ops, Abs_ForwardAndTermWithKinkAtZero) {
  auto n = run<Q>(OpKind::abs, {.inputs = {qt({3}, {"-2", "0", "3/2"})}});
  EXPECT_TENSOR(n.out(), qt({3}, {"2", "0", "3/2"}));
  EXPECT_TRUE(termsAre(n.terms(qt({3}, {"5", "5", "5"})), {{0, qt({3}, {"-5", "0", "5"})}}));  // abs'(0) = 0
}

TEST(Ops, Abs_ClearsTheSignBitOnDouble) {
  const double negNan = std::copysign(kNan, -1.0);
  ASSERT_TRUE(std::signbit(negNan));
  auto n = run<double>(OpKind::abs, {.inputs = {dt({3}, {-0.0, -2.5, negNan})}});
  EXPECT_TENSOR(n.out(), dt({3}, {0.0, 2.5, kNan}));
  EXPECT_FALSE(std::signbit(n.out()[0]));
  EXPECT_TRUE(std::isnan(n.out()[2]));
  EXPECT_FALSE(std::signbit(n.out()[2]));
}

TEST(Ops, Abs_ZeroBySelectionIsPositiveZeroOnDouble) {
  auto n = run<double>(OpKind::abs, {.inputs = {dt({3}, {0.0, -0.0, -3.0})}});
  EXPECT_TRUE(termsAre(n.terms(dt({3}, {-1.0, -1.0, -1.0})), {{0, dt({3}, {0.0, 0.0, 1.0})}}));
  EXPECT_TRUE(termsAre(n.terms(dt({3}, {kInf, kInf, kInf})), {{0, dt({3}, {0.0, 0.0, -kInf})}}));
}

TEST(Ops, Clamp_ForwardAndTermInclusiveAtBothEnds) {
  auto n = run<Q>(OpKind::clamp,
                  {.inputs = {qt({5}, {"-2", "-1", "1/2", "2", "3"})}, .attrs = clampTo<Q>(q("-1"), q("2"))});
  EXPECT_TENSOR(n.out(), qt({5}, {"-1", "-1", "1/2", "2", "2"}));
  // ct passes where lo <= x <= hi (both ends included), zero outside.
  EXPECT_TRUE(termsAre(n.terms(qt({5}, {"7", "7", "7", "7", "7"})), {{0, qt({5}, {"0", "7", "7", "7", "0"})}}));
}

TEST(Ops, Clamp_EqualBoundsPassAtTheBound) {
  auto n = run<Q>(OpKind::clamp, {.inputs = {qt({3}, {"0", "1", "2"})}, .attrs = clampTo<Q>(q("1"), q("1"))});
  EXPECT_TENSOR(n.out(), qt({3}, {"1", "1", "1"}));
  EXPECT_TRUE(termsAre(n.terms(qt({3}, {"3", "3", "3"})), {{0, qt({3}, {"0", "3", "0"})}}));
}

TEST(Ops, Clamp_ZeroBySelectionIsPositiveZeroOnDouble) {
  auto n = run<double>(OpKind::clamp, {.inputs = {dt({3}, {-5.0, 0.5, 5.0})}, .attrs = clampTo<double>(0.0, 1.0)});
  EXPECT_TENSOR(n.out(), dt({3}, {0.0, 0.5, 1.0}));
  EXPECT_TRUE(termsAre(n.terms(dt({3}, {-1.0, -1.0, -1.0})), {{0, dt({3}, {0.0, -1.0, 0.0})}}));
  EXPECT_TRUE(termsAre(n.terms(dt({3}, {kInf, kInf, kInf})), {{0, dt({3}, {0.0, kInf, 0.0})}}));
}

TEST(Ops, Clamp_AttributeErrors) {
  EXPECT_EQ(buildError<Q>(OpKind::clamp, {Shape{2}}), "node 1 (clamp): missing attribute 'lo' or 'hi'");
  EXPECT_EQ(buildError<Q>(OpKind::clamp, {Shape{2}}, clampTo<Q>(q("1"), std::nullopt)),
            "node 1 (clamp): missing attribute 'lo' or 'hi'");
  EXPECT_EQ(buildError<Q>(OpKind::clamp, {Shape{2}}, clampTo<Q>(q("1/2"), q("-1/3"))),
            "node 1 (clamp): needs lo <= hi, got lo = 1/2 and hi = -1/3");
  EXPECT_EQ(buildError<double>(OpKind::clamp, {Shape{2}}, clampTo<double>(kNan, 1.0)),
            "node 1 (clamp): needs lo <= hi, got lo = nan and hi = 1");
  EXPECT_EQ(buildError<ModP>(OpKind::clamp, {Shape{2}}, clampTo<ModP>(ModP::fromInt(0), ModP::fromInt(1))),
            "node 1 (clamp): needs an ordered carrier, which the modp carrier does not have");
  EXPECT_EQ(buildError<ModP>(OpKind::abs, {Shape{2}}),
            "node 1 (abs): needs an ordered carrier, which the modp carrier does not have");
}

// =============================================================================================
// Conventions (docs/semantics.md §2.5): each choice at each op's kinks, and NaN propagation
// =============================================================================================

tc::Conventions choosing(OpKind op, std::string_view choice) {
  tc::Conventions conventions;
  auto index = tc::ops::kinkChoiceIndex(op, choice);
  EXPECT_TRUE(index) << choice;
  conventions.kink[static_cast<std::size_t>(op)] = index.value_or(0);
  return conventions;
}

TEST(Ops, Conventions_EveryKinkedOpListsItsChoicesWithTheSpecificationsFirst) {
  EXPECT_EQ(std::vector<std::string_view>(tc::ops::kinkChoices(OpKind::relu).begin(), tc::ops::kinkChoices(OpKind::relu).end()),
            (std::vector<std::string_view>{"zero", "one"}));
  for (std::size_t k = 0; k < tc::kOpCount; ++k) {
    auto kind = static_cast<OpKind>(k);
    EXPECT_EQ(tc::ops::hasKinks(kind), !tc::ops::kinkChoices(kind).empty()) << tc::opName(kind);
  }
}

TEST(Ops, Conventions_ReluAtZeroPassesCtWhenChosen) {
  auto n = run<Q>(OpKind::relu, {.inputs = {qt({3}, {"-2", "0", "3/2"})}, .conventions = choosing(OpKind::relu, "one")});
  EXPECT_TENSOR(n.out(), qt({3}, {"0", "0", "3/2"}));
  EXPECT_TRUE(termsAre(n.terms(qt({3}, {"5", "5", "5"})), {{0, qt({3}, {"0", "5", "5"})}}));
}

TEST(Ops, Conventions_AbsAtZeroAsAProductKeepsNanAndSign) {
  auto n = run<double>(OpKind::abs, {.inputs = {dt({3}, {0.0, 0.0, 2.0})}, .conventions = choosing(OpKind::abs, "product")});
  EXPECT_TRUE(termsAre(n.terms(dt({3}, {kNan, -1.0, kNan})), {{0, dt({3}, {kNan, -0.0, kNan})}}));
  auto spec = run<double>(OpKind::abs, {.inputs = {dt({3}, {0.0, 0.0, 2.0})}});
  EXPECT_TRUE(termsAre(spec.terms(dt({3}, {kNan, -1.0, kNan})), {{0, dt({3}, {0.0, 0.0, kNan})}}));
}

TEST(Ops, Conventions_ClampBlocksAtItsBoundsWhenChosen) {
  auto n = run<Q>(OpKind::clamp, {.inputs = {qt({5}, {"-2", "-1", "1/2", "2", "3"})},
                                  .attrs = clampTo<Q>(q("-1"), q("2")),
                                  .conventions = choosing(OpKind::clamp, "block")});
  EXPECT_TRUE(termsAre(n.terms(qt({5}, {"7", "7", "7", "7", "7"})), {{0, qt({5}, {"0", "0", "7", "0", "0"})}}));
}

TEST(Ops, Conventions_MaxAndMinTiesSplitGoFirstOrGoToBoth) {
  for (OpKind op : {OpKind::max, OpKind::min}) {
    const std::vector<std::pair<std::string_view, std::pair<const char*, const char*>>> expected{
        {"split", {"3", "3"}}, {"first", {"6", "0"}}, {"both", {"6", "6"}}};
    for (const auto& [choice, shares] : expected) {
      auto n = run<Q>(op, {.inputs = {qt({1}, {"2"}), qt({1}, {"2"})}, .conventions = choosing(op, choice)});
      EXPECT_TRUE(termsAre(n.terms(qt({1}, {"6"})), {{0, qt({1}, {shares.first})}, {1, qt({1}, {shares.second})}}))
          << tc::opName(op) << " " << choice;
    }
  }
}

TEST(Ops, Conventions_NanPropagatesThroughReluAbsAndUnorderedMax) {
  tc::Conventions propagate;
  propagate.nanPropagates = true;
  auto relu = run<double>(OpKind::relu, {.inputs = {dt({2}, {kNan, -1.0})}, .conventions = propagate});
  EXPECT_TRUE(std::isnan(relu.out()[0]));
  EXPECT_TRUE(termsAre(relu.terms(dt({2}, {3.0, 3.0})), {{0, dt({2}, {3.0, 0.0})}}));  // PyTorch's mask is x <= 0
  auto abs = run<double>(OpKind::abs, {.inputs = {dt({1}, {kNan})}, .conventions = propagate});
  EXPECT_TRUE(termsAre(abs.terms(dt({1}, {3.0})), {{0, dt({1}, {kNan})}}));
  auto max = run<double>(OpKind::max, {.inputs = {dt({1}, {kNan}), dt({1}, {1.0})}, .conventions = propagate});
  EXPECT_TRUE(termsAre(max.terms(dt({1}, {4.0})), {{0, dt({1}, {4.0})}, {1, dt({1}, {4.0})}}));
  // The specification's: relu(NaN) = +0, abs'(NaN) = 0, an unordered pair is a tie.
  auto specRelu = run<double>(OpKind::relu, {.inputs = {dt({2}, {kNan, -1.0})}});
  EXPECT_TENSOR(specRelu.out(), dt({2}, {0.0, 0.0}));
  EXPECT_TRUE(termsAre(specRelu.terms(dt({2}, {3.0, 3.0})), {{0, dt({2}, {0.0, 0.0})}}));
  auto specMax = run<double>(OpKind::max, {.inputs = {dt({1}, {kNan}), dt({1}, {1.0})}});
  EXPECT_TRUE(termsAre(specMax.terms(dt({1}, {4.0})), {{0, dt({1}, {2.0})}, {1, dt({1}, {2.0})}}));
}

// =============================================================================================
// Transcendental ops (double): forward and terms equal the formulas of docs/semantics.md §2 bit for bit
// =============================================================================================

TEST(Ops, Transcendental_RejectedOnExactCarriers) {
  for (OpKind kind : {OpKind::exp, OpKind::log, OpKind::sqrt, OpKind::tanh, OpKind::sigmoid, OpKind::softplus,
                      OpKind::sin, OpKind::cos, OpKind::softmax_last, OpKind::log_softmax_last}) {
    const std::string name(tc::opName(kind));
    EXPECT_EQ(buildError<Q>(kind, {Shape{2}}),
              "node 1 (" + name + "): needs transcendental functions, which the rational carrier does not have");
    EXPECT_EQ(buildError<ModP>(kind, {Shape{2}}),
              "node 1 (" + name + "): needs transcendental functions, which the modp carrier does not have");
  }
}

TEST(Ops, Exp_ForwardAndTerm) {
  auto n = run<double>(OpKind::exp, {.inputs = {dt({3}, {0.0, 1.0, -2.0})}});
  EXPECT_TENSOR(n.out(), dt({3}, {1.0, std::exp(1.0), std::exp(-2.0)}));
  // [x: ct·exp(x)]; exp(0) = 1 exactly.
  EXPECT_TRUE(termsAre(n.terms(dt({3}, {3.0, 0.5, -1.0})),
                       {{0, dt({3}, {3.0, 0.5 * std::exp(1.0), -std::exp(-2.0)})}}));
}

TEST(Ops, Exp_RejectedOnRational) {
  EXPECT_EQ(buildError<Q>(OpKind::exp, {Shape{1}}),
            "node 1 (exp): needs transcendental functions, which the rational carrier does not have");
}

TEST(Ops, Log_ForwardAndTerm) {
  auto n = run<double>(OpKind::log, {.inputs = {dt({3}, {1.0, 2.0, 0.5})}});
  EXPECT_TENSOR(n.out(), dt({3}, {0.0, std::log(2.0), std::log(0.5)}));
  // [x: ct/x] with ct = [3, 1, 1]: [3, 0.5, 2], all exact.
  EXPECT_TRUE(termsAre(n.terms(dt({3}, {3.0, 1.0, 1.0})), {{0, dt({3}, {3.0, 0.5, 2.0})}}));
}

TEST(Ops, Log_RejectsNonPositiveAndNaN) {
  const std::string message = "node 1 (log): input contains values <= 0 or NaN";
  EXPECT_EQ(evalError<double>(OpKind::log, {.inputs = {dt({2}, {1.0, 0.0})}}), message);
  EXPECT_EQ(evalError<double>(OpKind::log, {.inputs = {dt({1}, {-0.0})}}), message);
  EXPECT_EQ(evalError<double>(OpKind::log, {.inputs = {dt({1}, {-1.0})}}), message);
  EXPECT_EQ(evalError<double>(OpKind::log, {.inputs = {dt({2}, {2.0, kNan})}}), message);
  EXPECT_EQ(evalError<double>(OpKind::log, {.inputs = {dt({1}, {-kInf})}}), message);
  EXPECT_EQ(evalError<double>(OpKind::log, {.inputs = {dt({1}, {kInf})}}), "<no error>");
  EXPECT_EQ(evalError<float>(OpKind::log, {.inputs = {Tensor<float>({1}, {0.0f})}}), message);
}

TEST(Ops, Sqrt_ForwardAndTerm) {
  auto n = run<double>(OpKind::sqrt, {.inputs = {dt({3}, {4.0, 2.0, 0.0})}});
  EXPECT_TENSOR(n.out(), dt({3}, {2.0, std::sqrt(2.0), 0.0}));
  // [x: ct/(2·sqrt(x))] with ct = [1, 3, 1]: [1/4, 3/(2·sqrt 2), 1/+0 = inf].
  EXPECT_TRUE(termsAre(n.terms(dt({3}, {1.0, 3.0, 1.0})), {{0, dt({3}, {0.25, 3.0 / (2.0 * std::sqrt(2.0)), kInf})}}));
}

TEST(Ops, Tanh_ForwardAndTerm) {
  const double t = std::tanh(0.5);
  auto n = run<double>(OpKind::tanh, {.inputs = {dt({2}, {0.0, 0.5})}});
  EXPECT_TENSOR(n.out(), dt({2}, {0.0, t}));
  // [x: ct·(1 - y·y)]: ct = 3 at y = 0 gives 3 exactly.
  EXPECT_TRUE(termsAre(n.terms(dt({2}, {3.0, 2.0})), {{0, dt({2}, {3.0, 2.0 * (1.0 - t * t)})}}));
}

TEST(Ops, Sigmoid_ForwardAndTerm) {
  const double s2 = 1.0 / (1.0 + std::exp(-2.0));
  const double sm2 = std::exp(-2.0) / (1.0 + std::exp(-2.0));  // below 0: exp x/(1 + exp x)
  auto n = run<double>(OpKind::sigmoid, {.inputs = {dt({3}, {0.0, 2.0, -2.0})}});
  EXPECT_TENSOR(n.out(), dt({3}, {0.5, s2, sm2}));
  // [x: ct·(y·(1 - y))]: at x = 0, 4·(0.5·0.5) = 1 exactly.
  EXPECT_TRUE(termsAre(n.terms(dt({3}, {4.0, 1.0, -1.0})),
                       {{0, dt({3}, {1.0, 1.0 * (s2 * (1.0 - s2)), -1.0 * (sm2 * (1.0 - sm2))})}}));
}

TEST(Ops, Softplus_ForwardAndTermWithoutOverflow) {
  auto n = run<double>(OpKind::softplus, {.inputs = {dt({5}, {0.0, 3.0, -3.0, 1000.0, -1000.0})}});
  // x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); at ±1000 exp underflows to 0 instead of overflowing.
  EXPECT_TENSOR(n.out(), dt({5}, {std::log1p(1.0), 3.0 + std::log1p(std::exp(-3.0)), std::log1p(std::exp(-3.0)),
                                  1000.0, 0.0}));
  // [x: ct·sigmoid(x)]: sigmoid(0) = 1/2, sigmoid(1000) = 1, sigmoid(-1000) = 0/(1 + 0) = 0.
  auto sigmoid = [](double x) { return x < 0 ? std::exp(x) / (1.0 + std::exp(x)) : 1.0 / (1.0 + std::exp(-x)); };
  EXPECT_TRUE(termsAre(n.terms(dt({5}, {2.0, 1.0, 1.0, 1.0, 1.0})),
                       {{0, dt({5}, {1.0, sigmoid(3.0), sigmoid(-3.0), 1.0, 0.0})}}));
}

TEST(Ops, Sin_ForwardAndTerm) {
  auto n = run<double>(OpKind::sin, {.inputs = {dt({2}, {0.0, 1.0})}});
  EXPECT_TENSOR(n.out(), dt({2}, {0.0, std::sin(1.0)}));
  // [x: ct·cos(x)]: 2·cos 0 = 2.
  EXPECT_TRUE(termsAre(n.terms(dt({2}, {2.0, 3.0})), {{0, dt({2}, {2.0, 3.0 * std::cos(1.0)})}}));
}

TEST(Ops, Cos_ForwardAndTerm) {
  auto n = run<double>(OpKind::cos, {.inputs = {dt({2}, {0.0, 1.0})}});
  EXPECT_TENSOR(n.out(), dt({2}, {1.0, std::cos(1.0)}));
  // [x: -(ct·sin(x))]: at x = 0 that is -(1·0) = -0, bit for bit.
  EXPECT_TRUE(termsAre(n.terms(dt({2}, {1.0, 3.0})), {{0, dt({2}, {-0.0, -(3.0 * std::sin(1.0))})}}));
}

// =============================================================================================
// sum, sum_axis, mean, dot
// =============================================================================================

TEST(Ops, Sum_ForwardAndTerm) {
  auto n = run<Q>(OpKind::sum, {.inputs = {qt({2, 2}, {"1", "2/3", "-1/2", "3"})}});
  EXPECT_TENSOR(n.out(), qt({}, {"25/6"}));  // 6/6 + 4/6 - 3/6 + 18/6
  EXPECT_TRUE(termsAre(n.terms(qt({}, {"-3/4"})), {{0, qt({2, 2}, {"-3/4", "-3/4", "-3/4", "-3/4"})}}));
}

TEST(Ops, Sum_LeftFoldFromPositiveZeroOnDouble) {
  // A fold from +0: the sum of [-0] is +0.
  EXPECT_TENSOR(run<double>(OpKind::sum, {.inputs = {dt({1}, {-0.0})}}).out(), dt({}, {0.0}));
  EXPECT_TENSOR(run<double>(OpKind::sum, {.inputs = {dt({2}, {-0.0, -0.0})}}).out(), dt({}, {0.0}));
  // Increasing order: ((0 + 2^53) + 1) - 2^53 = 0, whereas a right fold would give 1.
  EXPECT_TENSOR(run<double>(OpKind::sum, {.inputs = {dt({3}, {k2p53, 1.0, -k2p53})}}).out(), dt({}, {0.0}));
}

TEST(Ops, SumAxis_ForwardAndTermOnMatrix) {
  auto x = qt({2, 3}, {"1", "2", "3", "4", "5", "1/2"});
  auto rows = run<Q>(OpKind::sum_axis, {.inputs = {x}, .attrs = alongAxis<Q>(0)});
  EXPECT_TENSOR(rows.out(), qt({3}, {"5", "7", "7/2"}));
  EXPECT_TRUE(termsAre(rows.terms(qt({3}, {"1", "2", "3"})), {{0, qt({2, 3}, {"1", "2", "3", "1", "2", "3"})}}));
  auto cols = run<Q>(OpKind::sum_axis, {.inputs = {x}, .attrs = alongAxis<Q>(1)});
  EXPECT_TENSOR(cols.out(), qt({2}, {"6", "19/2"}));
  EXPECT_TRUE(termsAre(cols.terms(qt({2}, {"10", "20"})), {{0, qt({2, 3}, {"10", "10", "10", "20", "20", "20"})}}));
}

TEST(Ops, SumAxis_MiddleAxisOfThreeDimensions) {
  // x[o][j][i] = [[[1, 2], [3, 4]], [[5, 6], [7, 8]]], summed over j.
  auto n = run<Q>(OpKind::sum_axis,
                  {.inputs = {qt({2, 2, 2}, {"1", "2", "3", "4", "5", "6", "7", "8"})}, .attrs = alongAxis<Q>(1)});
  EXPECT_TENSOR(n.out(), qt({2, 2}, {"4", "6", "12", "14"}));
  // ct[o][i] is copied to every j.
  EXPECT_TRUE(termsAre(n.terms(qt({2, 2}, {"1", "2", "3", "4"})),
                       {{0, qt({2, 2, 2}, {"1", "2", "1", "2", "3", "4", "3", "4"})}}));
}

TEST(Ops, SumAxis_LeftFoldFromPositiveZeroOnDouble) {
  // x = [[-0, 2^53], [-0, 1], [-0, -2^53]], summed over rows.
  auto n = run<double>(OpKind::sum_axis, {.inputs = {dt({3, 2}, {-0.0, k2p53, -0.0, 1.0, -0.0, -k2p53})},
                                          .attrs = alongAxis<double>(0)});
  EXPECT_TENSOR(n.out(), dt({2}, {0.0, 0.0}));  // +0 + -0 + -0 + -0 = +0; ((0 + 2^53) + 1) - 2^53 = 0
}

TEST(Ops, SumAxis_AxisOutOfRange) {
  EXPECT_EQ(buildError<Q>(OpKind::sum_axis, {Shape{2, 3}}, alongAxis<Q>(2)),
            "node 1 (sum_axis): axis 2 is out of range for shape [2, 3]");
  EXPECT_EQ(buildError<Q>(OpKind::sum_axis, {Shape{}}), "node 1 (sum_axis): axis 0 is out of range for shape []");
}

TEST(Ops, Mean_ForwardAndTerm) {
  auto n = run<Q>(OpKind::mean, {.inputs = {qt({3}, {"1", "2", "4"})}});
  EXPECT_TENSOR(n.out(), qt({}, {"7/3"}));
  EXPECT_TRUE(termsAre(n.terms(qt({}, {"3/2"})), {{0, qt({3}, {"1/2", "1/2", "1/2"})}}));  // ct/size
}

TEST(Ops, Mean_ModP) {
  // 1/2 = (p + 1)/2 = 2^60; 3/2 = 3·2^60 - p = 2^60 + 1 (check: 2·(2^60 + 1) = p + 3).
  constexpr std::uint64_t half = std::uint64_t{1} << 60;
  auto n = run<ModP>(OpKind::mean, {.inputs = {mt({2}, {1, 2})}});
  EXPECT_TENSOR(n.out(), mr({}, {half + 1}));
  EXPECT_TRUE(termsAre(n.terms(mt({}, {1})), {{0, mr({2}, {half, half})}}));
}

TEST(Ops, Mean_LeftFoldFromPositiveZeroOnDouble) {
  auto n = run<double>(OpKind::mean, {.inputs = {dt({1}, {-0.0})}});
  EXPECT_TENSOR(n.out(), dt({}, {0.0}));  // (+0 + -0)/1
  EXPECT_TRUE(termsAre(n.terms(dt({}, {-3.0})), {{0, dt({1}, {-3.0})}}));
}

TEST(Ops, Dot_ForwardAndTerms) {
  auto n = run<Q>(OpKind::dot, {.inputs = {qt({3}, {"1", "-2", "1/2"}), qt({3}, {"3", "1/4", "4"})}});
  EXPECT_TENSOR(n.out(), qt({}, {"9/2"}));  // 3 - 1/2 + 2
  // ct = 2: [a: ct·b] = [6, 1/2, 8], [b: ct·a] = [2, -4, 1].
  EXPECT_TRUE(termsAre(n.terms(qt({}, {"2"})), {{0, qt({3}, {"6", "1/2", "8"})}, {1, qt({3}, {"2", "-4", "1"})}}));
}

TEST(Ops, Dot_FoldFromPositiveZeroAndPlainProductTermsOnDouble) {
  // Forward: +0 + (0·-0) = +0 + -0 = +0. Terms are plain products: ct·b = -1·-0 = +0, ct·a = -1·0 = -0.
  auto n = run<double>(OpKind::dot, {.inputs = {dt({1}, {0.0}), dt({1}, {-0.0})}});
  EXPECT_TENSOR(n.out(), dt({}, {0.0}));
  EXPECT_TRUE(termsAre(n.terms(dt({}, {-1.0})), {{0, dt({1}, {0.0})}, {1, dt({1}, {-0.0})}}));
  // The brief's example: dot([-0], [1]) = +0.
  EXPECT_TENSOR(run<double>(OpKind::dot, {.inputs = {dt({1}, {-0.0}), dt({1}, {1.0})}}).out(), dt({}, {0.0}));
}

TEST(Ops, Dot_ShapeErrors) {
  EXPECT_EQ(buildError<Q>(OpKind::dot, {Shape{2}, Shape{3}}),
            "node 2 (dot): needs two vectors of one length, got [2] and [3]");
  EXPECT_EQ(buildError<Q>(OpKind::dot, {Shape{2, 1}, Shape{2, 1}}),
            "node 2 (dot): needs two vectors of one length, got [2, 1] and [2, 1]");
  EXPECT_EQ(buildError<Q>(OpKind::dot, {Shape{}, Shape{}}),
            "node 2 (dot): needs two vectors of one length, got [] and []");
}

// =============================================================================================
// matmul, transpose, linear
// =============================================================================================

TEST(Ops, Matmul_MatrixForwardAndTerms) {
  // A = [[1, 2, 3], [4, 5, 6]], B = [[1, 0], [0, 1], [1, -1/2]].
  auto n = run<Q>(OpKind::matmul, {.inputs = {qt({2, 3}, {"1", "2", "3", "4", "5", "6"}),
                                              qt({3, 2}, {"1", "0", "0", "1", "1", "-1/2"})}});
  // A·B = [[1 + 3, 2 - 3/2], [4 + 6, 5 - 3]].
  EXPECT_TENSOR(n.out(), qt({2, 2}, {"4", "1/2", "10", "2"}));
  // ct = [[1, 2], [3, 4]].
  // [a: ct·Bᵀ]: row i, column l = Σ_j ct[i][j]·B[l][j] → [[1, 2, 1 - 1], [3, 4, 3 - 2]].
  // [b: Aᵀ·ct]: row l, column j = Σ_i A[i][l]·ct[i][j] → [[1 + 12, 2 + 16], [2 + 15, 4 + 20], [3 + 18, 6 + 24]].
  EXPECT_TRUE(termsAre(n.terms(qt({2, 2}, {"1", "2", "3", "4"})),
                       {{0, qt({2, 3}, {"1", "2", "0", "3", "4", "1"})},
                        {1, qt({3, 2}, {"13", "18", "17", "24", "21", "30"})}}));
}

TEST(Ops, Matmul_VectorForwardAndTerms) {
  auto n = run<Q>(OpKind::matmul,
                  {.inputs = {qt({2, 3}, {"1", "2", "3", "4", "5", "6"}), qt({3}, {"1", "-1", "1/2"})}});
  EXPECT_TENSOR(n.out(), qt({2}, {"1/2", "2"}));  // [1 - 2 + 3/2, 4 - 5 + 3]
  // ct = [2, -1]. [a: ct ⊗ b] = [[2, -2, 1], [-1, 1, -1/2]]; [b: Aᵀ·ct] = [2 - 4, 4 - 5, 6 - 6].
  EXPECT_TRUE(termsAre(n.terms(qt({2}, {"2", "-1"})),
                       {{0, qt({2, 3}, {"2", "-2", "1", "-1", "1", "-1/2"})}, {1, qt({3}, {"-2", "-1", "0"})}}));
}

TEST(Ops, Matmul_VectorATermIsAPlainProductOnDouble) {
  // A = [[0]], b = [0], ct = [-1]. Vector case: [a] = ct·b = -1·0 = -0 (no inner sum).
  // [b] = +0 + A·ct = +0 + -0 = +0. Forward: +0 + 0·0 = +0.
  auto vec = run<double>(OpKind::matmul, {.inputs = {dt({1, 1}, {0.0}), dt({1}, {0.0})}});
  EXPECT_TENSOR(vec.out(), dt({1}, {0.0}));
  EXPECT_TRUE(termsAre(vec.terms(dt({1}, {-1.0})), {{0, dt({1, 1}, {-0.0})}, {1, dt({1}, {0.0})}}));
  // Matrix case with n = 1: [a] is the inner sum +0 + ct·B = +0 + -0 = +0.
  auto mat = run<double>(OpKind::matmul, {.inputs = {dt({1, 1}, {0.0}), dt({1, 1}, {0.0})}});
  EXPECT_TRUE(termsAre(mat.terms(dt({1, 1}, {-1.0})), {{0, dt({1, 1}, {0.0})}, {1, dt({1, 1}, {0.0})}}));
  // Forward of [[-0]]·[[1]] folds from +0: +0 + -0 = +0.
  EXPECT_TENSOR(run<double>(OpKind::matmul, {.inputs = {dt({1, 1}, {-0.0}), dt({1, 1}, {1.0})}}).out(),
                dt({1, 1}, {0.0}));
}

TEST(Ops, Matmul_ShapeErrors) {
  EXPECT_EQ(buildError<Q>(OpKind::matmul, {Shape{2, 3}, Shape{2}}),
            "node 2 (matmul): needs [m, k] x [k, n] or [m, k] x [k], got [2, 3] x [2]");
  EXPECT_EQ(buildError<Q>(OpKind::matmul, {Shape{2, 3}, Shape{2, 3}}),
            "node 2 (matmul): needs [m, k] x [k, n] or [m, k] x [k], got [2, 3] x [2, 3]");
  EXPECT_EQ(buildError<Q>(OpKind::matmul, {Shape{3}, Shape{3}}),
            "node 2 (matmul): needs [m, k] x [k, n] or [m, k] x [k], got [3] x [3]");
  EXPECT_EQ(buildError<Q>(OpKind::matmul, {Shape{2, 3}, Shape{3, 1, 1}}),
            "node 2 (matmul): needs [m, k] x [k, n] or [m, k] x [k], got [2, 3] x [3, 1, 1]");
}

TEST(Ops, Transpose_ForwardAndTerm) {
  auto n = run<Q>(OpKind::transpose, {.inputs = {qt({2, 3}, {"1", "2", "3", "4", "5", "1/6"})}});
  EXPECT_TENSOR(n.out(), qt({3, 2}, {"1", "4", "2", "5", "3", "1/6"}));
  // ct = [[1, 2], [3, 4], [5, 6]] → ctᵀ = [[1, 3, 5], [2, 4, 6]].
  EXPECT_TRUE(termsAre(n.terms(qt({3, 2}, {"1", "2", "3", "4", "5", "6"})),
                       {{0, qt({2, 3}, {"1", "3", "5", "2", "4", "6"})}}));
}

TEST(Ops, Transpose_NeedsAMatrix) {
  EXPECT_EQ(buildError<Q>(OpKind::transpose, {Shape{3}}), "node 1 (transpose): needs a matrix, got [3]");
  EXPECT_EQ(buildError<Q>(OpKind::transpose, {Shape{1, 2, 3}}), "node 1 (transpose): needs a matrix, got [1, 2, 3]");
}

TEST(Ops, Linear_ForwardAndTerms) {
  // W = [[1, 2, 3], [4, 5, 6]], x = [1, -1, 1/2], b = [10, -1].
  auto n = run<Q>(OpKind::linear, {.inputs = {qt({2, 3}, {"1", "2", "3", "4", "5", "6"}), qt({3}, {"1", "-1", "1/2"}),
                                              qt({2}, {"10", "-1"})}});
  EXPECT_TENSOR(n.out(), qt({2}, {"21/2", "1"}));  // W·x = [1/2, 2], plus b
  // ct = [2, -1]: [W: ct ⊗ x], [x: Wᵀ·ct] = [2 - 4, 4 - 5, 6 - 6], [b: ct].
  EXPECT_TRUE(termsAre(n.terms(qt({2}, {"2", "-1"})), {{0, qt({2, 3}, {"2", "-2", "1", "-1", "1", "-1/2"})},
                                                      {1, qt({3}, {"-2", "-1", "0"})},
                                                      {2, qt({2}, {"2", "-1"})}}));
}

TEST(Ops, Linear_OuterProductIsPlainAndInnerSumsFoldFromZeroOnDouble) {
  // W = [[0]], x = [0], b = [-0], ct = [-1].
  auto n = run<double>(OpKind::linear, {.inputs = {dt({1, 1}, {0.0}), dt({1}, {0.0}), dt({1}, {-0.0})}});
  EXPECT_TENSOR(n.out(), dt({1}, {0.0}));  // (+0 + 0·0) + -0 = +0
  // [W] = ct·x = -0 (plain product); [x] = +0 + W·ct = +0 + -0 = +0; [b] = ct.
  EXPECT_TRUE(termsAre(n.terms(dt({1}, {-1.0})), {{0, dt({1, 1}, {-0.0})}, {1, dt({1}, {0.0})}, {2, dt({1}, {-1.0})}}));
}

TEST(Ops, Linear_ShapeErrors) {
  EXPECT_EQ(buildError<Q>(OpKind::linear, {Shape{2, 3}, Shape{2}, Shape{2}}),
            "node 3 (linear): needs W [m, k], x [k], b [m], got [2, 3], [2], [2]");
  EXPECT_EQ(buildError<Q>(OpKind::linear, {Shape{2, 3}, Shape{3}, Shape{3}}),
            "node 3 (linear): needs W [m, k], x [k], b [m], got [2, 3], [3], [3]");
  EXPECT_EQ(buildError<Q>(OpKind::linear, {Shape{3}, Shape{3}, Shape{1}}),
            "node 3 (linear): needs W [m, k], x [k], b [m], got [3], [3], [1]");
}

// =============================================================================================
// reshape, broadcast, concat0, slice0
// =============================================================================================

TEST(Ops, Reshape_ForwardAndTerm) {
  auto n = run<Q>(OpKind::reshape,
                  {.inputs = {qt({2, 3}, {"1", "2", "3", "4", "5", "6"})}, .attrs = toShape<Q>({3, 2})});
  EXPECT_TENSOR(n.out(), qt({3, 2}, {"1", "2", "3", "4", "5", "6"}));
  EXPECT_TRUE(termsAre(n.terms(qt({3, 2}, {"-1", "1/2", "0", "7", "8", "9"})),
                       {{0, qt({2, 3}, {"-1", "1/2", "0", "7", "8", "9"})}}));
  auto toScalar = run<Q>(OpKind::reshape, {.inputs = {qt({1, 1}, {"5"})}, .attrs = toShape<Q>({})});
  EXPECT_TENSOR(toScalar.out(), qt({}, {"5"}));
}

TEST(Ops, Reshape_ShapeErrors) {
  EXPECT_EQ(buildError<Q>(OpKind::reshape, {Shape{2, 3}}, toShape<Q>({4})),
            "node 1 (reshape): cannot reshape [2, 3] (6 elements) to [4] (4 elements)");
  EXPECT_EQ(buildError<Q>(OpKind::reshape, {Shape{2}}, toShape<Q>({2, 0})),
            "node 1 (reshape): shape [2, 0]: dimension 1 is 0; every dimension must be at least 1");
}

TEST(Ops, Broadcast_ForwardAndTerm) {
  auto n = run<Q>(OpKind::broadcast, {.inputs = {qt({2}, {"1", "-1/2"})}, .attrs = toShape<Q>({3, 2})});
  EXPECT_TENSOR(n.out(), qt({3, 2}, {"1", "-1/2", "1", "-1/2", "1", "-1/2"}));
  // ct summed over the leading dimension: [1 + 3 + 5, 2 + 4 + 6].
  EXPECT_TRUE(termsAre(n.terms(qt({3, 2}, {"1", "2", "3", "4", "5", "6"})), {{0, qt({2}, {"9", "12"})}}));
}

TEST(Ops, Broadcast_ScalarToMatrixAndSameShape) {
  auto scalar = run<Q>(OpKind::broadcast, {.inputs = {qt({}, {"5"})}, .attrs = toShape<Q>({2, 2})});
  EXPECT_TENSOR(scalar.out(), qt({2, 2}, {"5", "5", "5", "5"}));
  EXPECT_TRUE(termsAre(scalar.terms(qt({2, 2}, {"1", "2", "3", "1/2"})), {{0, qt({}, {"13/2"})}}));
  auto same = run<Q>(OpKind::broadcast, {.inputs = {qt({2}, {"1", "2"})}, .attrs = toShape<Q>({2})});
  EXPECT_TENSOR(same.out(), qt({2}, {"1", "2"}));
  EXPECT_TRUE(termsAre(same.terms(qt({2}, {"3", "4"})), {{0, qt({2}, {"3", "4"})}}));
}

TEST(Ops, Broadcast_ReductionFoldsFromZeroInIncreasingOrderOnDouble) {
  auto n = run<double>(OpKind::broadcast, {.inputs = {dt({}, {1.0})}, .attrs = toShape<double>({3})});
  // ((+0 + 2^53) + 1) - 2^53 = 0; a fold in another order or from the first copy could give 1.
  EXPECT_TRUE(termsAre(n.terms(dt({3}, {k2p53, 1.0, -k2p53})), {{0, dt({}, {0.0})}}));
  auto one = run<double>(OpKind::broadcast, {.inputs = {dt({}, {1.0})}, .attrs = toShape<double>({1})});
  EXPECT_TRUE(termsAre(one.terms(dt({1}, {-0.0})), {{0, dt({}, {0.0})}}));  // +0 + -0 = +0
}

TEST(Ops, Broadcast_ShapeErrors) {
  EXPECT_EQ(buildError<Q>(OpKind::broadcast, {Shape{2}}, toShape<Q>({2, 3})),
            "node 1 (broadcast): shape [2] is not a suffix of [2, 3]");
  EXPECT_EQ(buildError<Q>(OpKind::broadcast, {Shape{2, 3}}, toShape<Q>({3})),
            "node 1 (broadcast): shape [2, 3] is not a suffix of [3]");
  EXPECT_EQ(buildError<Q>(OpKind::broadcast, {Shape{2}}, toShape<Q>({0, 2})),
            "node 1 (broadcast): shape [0, 2]: dimension 0 is 0; every dimension must be at least 1");
}

TEST(Ops, Concat0_ForwardAndTerms) {
  auto n = run<Q>(OpKind::concat0, {.inputs = {qt({1, 2}, {"1", "2"}), qt({2, 2}, {"3", "4", "5", "1/6"})}});
  EXPECT_TENSOR(n.out(), qt({3, 2}, {"1", "2", "3", "4", "5", "1/6"}));
  EXPECT_TRUE(termsAre(n.terms(qt({3, 2}, {"10", "20", "30", "40", "50", "-60"})),
                       {{0, qt({1, 2}, {"10", "20"})}, {1, qt({2, 2}, {"30", "40", "50", "-60"})}}));
}

TEST(Ops, Concat0_ShapeErrors) {
  const std::string prefix = "node 2 (concat0): needs [m, ...] and [n, ...] with equal trailing dimensions, got ";
  EXPECT_EQ(buildError<Q>(OpKind::concat0, {Shape{2}, Shape{2, 1}}), prefix + "[2] and [2, 1]");
  EXPECT_EQ(buildError<Q>(OpKind::concat0, {Shape{1, 2}, Shape{1, 3}}), prefix + "[1, 2] and [1, 3]");
  EXPECT_EQ(buildError<Q>(OpKind::concat0, {Shape{}, Shape{}}), prefix + "[] and []");
}

TEST(Ops, Slice0_ForwardAndTerm) {
  auto n = run<Q>(OpKind::slice0, {.inputs = {qt({4}, {"1", "2", "3", "4"})}, .attrs = sliceRows<Q>(1, 2)});
  EXPECT_TENSOR(n.out(), qt({2}, {"2", "3"}));
  EXPECT_TRUE(termsAre(n.terms(qt({2}, {"5", "-1/2"})), {{0, qt({4}, {"0", "5", "-1/2", "0"})}}));  // zero-padded
}

TEST(Ops, Slice0_RowsOfAMatrix) {
  auto n = run<Q>(OpKind::slice0,
                  {.inputs = {qt({3, 2}, {"1", "2", "3", "4", "5", "6"})}, .attrs = sliceRows<Q>(2, 1)});
  EXPECT_TENSOR(n.out(), qt({1, 2}, {"5", "6"}));
  EXPECT_TRUE(termsAre(n.terms(qt({1, 2}, {"7", "8"})), {{0, qt({3, 2}, {"0", "0", "0", "0", "7", "8"})}}));
}

TEST(Ops, Slice0_PaddingIsPositiveZeroOnDouble) {
  auto n = run<double>(OpKind::slice0, {.inputs = {dt({3}, {1.0, 2.0, 3.0})}, .attrs = sliceRows<double>(1, 1)});
  EXPECT_TRUE(termsAre(n.terms(dt({1}, {-1.0})), {{0, dt({3}, {0.0, -1.0, 0.0})}}));
}

TEST(Ops, Slice0_ShapeErrors) {
  EXPECT_EQ(buildError<Q>(OpKind::slice0, {Shape{}}, sliceRows<Q>(0, 1)),
            "node 1 (slice0): needs at least one axis, got a scalar");
  EXPECT_EQ(buildError<Q>(OpKind::slice0, {Shape{4}}, sliceRows<Q>(3, 2)),
            "node 1 (slice0): rows [3, 3+2) are out of range for 4 rows");
  EXPECT_EQ(buildError<Q>(OpKind::slice0, {Shape{4}}, sliceRows<Q>(4, 1)),
            "node 1 (slice0): rows [4, 4+1) are out of range for 4 rows");
  EXPECT_EQ(buildError<Q>(OpKind::slice0, {Shape{4}}, sliceRows<Q>(0, 0)),
            "node 1 (slice0): len is 0; a slice takes at least one row");
}

// =============================================================================================
// const, detach, mask, gather0
// =============================================================================================

TEST(Ops, Const_ForwardAndNoTerms) {
  auto n = run<Q>(OpKind::constant, {.attrs = constValues<Q>({2}, {q("1/2"), q("-3")})});
  EXPECT_EQ(n.position(), 0u);
  EXPECT_TENSOR(n.out(), qt({2}, {"1/2", "-3"}));
  EXPECT_TRUE(termsAre(n.terms(qt({2}, {"1", "1"})), {}));
  EXPECT_TRUE(supportIs(n.local(qt({2}, {"1", "1"})), {}));
}

TEST(Ops, Const_ShapeErrors) {
  EXPECT_EQ(buildError<Q>(OpKind::constant, {}, constValues<Q>({2}, {q("1"), q("2"), q("3")})),
            "node 0 (const): shape [2] needs 2 values, got 3");
  EXPECT_EQ(buildError<Q>(OpKind::constant, {Shape{2}}, constValues<Q>({2}, {q("1"), q("2")})),
            "node 1 (const): takes 0 arguments, got 1");
}

TEST(Ops, Detach_ForwardAndNoTerms) {
  auto n = run<Q>(OpKind::detach, {.inputs = {qt({2}, {"1/2", "-3"})}});
  EXPECT_TENSOR(n.out(), qt({2}, {"1/2", "-3"}));
  EXPECT_TRUE(termsAre(n.terms(qt({2}, {"4", "5"})), {}));
  EXPECT_TRUE(supportIs(n.local(qt({2}, {"4", "5"})), {}));
  // The dense order then adds the carrier's zero at x: on double, a -0 seed becomes +0.
  auto d = run<double>(OpKind::detach, {.inputs = {dt({1}, {-0.0})}});
  EXPECT_TENSOR(d.out(), dt({1}, {-0.0}));
  auto grads = tc::spec::backpropAllCtx<double>(d.graph, d.context, d.data, {dt({1}, {-0.0}), dt({1}, {kInf})});
  EXPECT_TENSOR(grads[0], dt({1}, {0.0}));
}

DataSchema maskSchema() {
  DataSchema schema;
  schema.tensors["m"] = Shape{3};
  return schema;
}

TEST(Ops, Mask_ForwardAndTerm) {
  auto n = run<Q>(OpKind::mask, {.inputs = {qt({3}, {"4", "5", "6"})},
                                 .attrs = dataKey<Q>("m"),
                                 .schema = maskSchema(),
                                 .data = {{"m", qt({3}, {"1", "0", "1/2"})}}});
  EXPECT_TENSOR(n.out(), qt({3}, {"4", "0", "3"}));
  EXPECT_TRUE(termsAre(n.terms(qt({3}, {"2", "2", "2"})), {{0, qt({3}, {"2", "0", "1"})}}));  // ct ⊙ m
}

TEST(Ops, Mask_IsAProductNotASelectionOnDouble) {
  // [x: ct ⊙ m] is a product: ct = -1 at m = 0 gives -0.
  auto n = run<double>(OpKind::mask, {.inputs = {dt({3}, {1.0, 2.0, 3.0})},
                                      .attrs = dataKey<double>("m"),
                                      .schema = maskSchema(),
                                      .data = {{"m", dt({3}, {0.0, 1.0, 2.0})}}});
  EXPECT_TENSOR(n.out(), dt({3}, {0.0, 2.0, 6.0}));
  EXPECT_TRUE(termsAre(n.terms(dt({3}, {-1.0, -1.0, -1.0})), {{0, dt({3}, {-0.0, -1.0, -2.0})}}));
}

TEST(Ops, Mask_ShapeErrors) {
  EXPECT_EQ(buildError<Q>(OpKind::mask, {Shape{3}}, dataKey<Q>("nope"), maskSchema()),
            "node 1 (mask): data has no tensor 'nope'");
  EXPECT_EQ(buildError<Q>(OpKind::mask, {Shape{2}}, dataKey<Q>("m"), maskSchema()),
            "node 1 (mask): data tensor 'm' has shape [3], argument has shape [2]");
}

DataSchema gatherSchema(std::vector<std::size_t> rows) {
  DataSchema schema;
  schema.indices["rows"] = std::move(rows);
  return schema;
}

TEST(Ops, Gather0_ForwardAndScatterAddedTerm) {
  auto n = run<Q>(OpKind::gather0, {.inputs = {qt({3, 2}, {"1", "2", "3", "4", "5", "1/6"})},
                                    .attrs = dataKey<Q>("rows"),
                                    .schema = gatherSchema({2, 0, 2})});
  EXPECT_TENSOR(n.out(), qt({3, 2}, {"5", "1/6", "1", "2", "5", "1/6"}));
  // ct rows [1, 2], [3, 4], [5, 6] go to x rows 2, 0, 2: row 0 = [3, 4], row 1 = 0, row 2 = [1 + 5, 2 + 6].
  EXPECT_TRUE(termsAre(n.terms(qt({3, 2}, {"1", "2", "3", "4", "5", "6"})),
                       {{0, qt({3, 2}, {"3", "4", "0", "0", "6", "8"})}}));
}

TEST(Ops, Gather0_ScatterFoldsFromZeroInIndexOrderOnDouble) {
  auto n = run<double>(OpKind::gather0, {.inputs = {dt({2}, {7.0, 8.0})}, .attrs = dataKey<double>("rows"),
                                         .schema = gatherSchema({0, 0, 0, 1})});
  EXPECT_TENSOR(n.out(), dt({4}, {7.0, 7.0, 7.0, 8.0}));
  // Row 0: ((+0 + 2^53) + 1) - 2^53 = 0; row 1: +0 + -0 = +0.
  EXPECT_TRUE(termsAre(n.terms(dt({4}, {k2p53, 1.0, -k2p53, -0.0})), {{0, dt({2}, {0.0, 0.0})}}));
}

TEST(Ops, Gather0_ShapeErrors) {
  EXPECT_EQ(buildError<Q>(OpKind::gather0, {Shape{3}}, dataKey<Q>("nope"), gatherSchema({0})),
            "node 1 (gather0): data has no index list 'nope'");
  EXPECT_EQ(buildError<Q>(OpKind::gather0, {Shape{}}, dataKey<Q>("rows"), gatherSchema({0})),
            "node 1 (gather0): needs at least one axis, got a scalar");
  EXPECT_EQ(buildError<Q>(OpKind::gather0, {Shape{3}}, dataKey<Q>("rows"), gatherSchema({})),
            "node 1 (gather0): index list 'rows' is empty");
  EXPECT_EQ(buildError<Q>(OpKind::gather0, {Shape{3}}, dataKey<Q>("rows"), gatherSchema({0, 3})),
            "node 1 (gather0): index 1 of 'rows' is 3, out of range for 3 rows");
}

// =============================================================================================
// mse_loss, softmax_last, log_softmax_last
// =============================================================================================

TEST(Ops, MseLoss_ForwardAndTerms) {
  auto n = run<Q>(OpKind::mse_loss, {.inputs = {qt({3}, {"1", "2", "4"}), qt({3}, {"0", "4", "1"})}});
  EXPECT_TENSOR(n.out(), qt({}, {"14/3"}));  // d = a - b = [1, -2, 3]; (1 + 4 + 9)/3
  // ct = 3/2: [a: ((ct·2)·d)/n] = (3·d)/3 = d; [b: -that].
  EXPECT_TRUE(termsAre(n.terms(qt({}, {"3/2"})), {{0, qt({3}, {"1", "-2", "3"})}, {1, qt({3}, {"-1", "2", "-3"})}}));
}

TEST(Ops, MseLoss_ShapeError) {
  EXPECT_EQ(buildError<Q>(OpKind::mse_loss, {Shape{3}, Shape{2}}),
            "node 2 (mse_loss): arguments have shapes [3] and [2]; they must be equal");
}

TEST(Ops, SoftmaxLast_ForwardAndTerm) {
  auto n = run<double>(OpKind::softmax_last, {.inputs = {dt({2, 2}, {0.0, 0.0, 1.0, 3.0})}});
  // Row 0: max 0, total (+0 + 1) + 1 = 2, y = [1/2, 1/2] exactly.
  // Row 1: max 3, total (+0 + exp(-2)) + exp(0), y = exp(x - 3)/total.
  const double total = (0.0 + std::exp(-2.0)) + 1.0;
  const double y10 = std::exp(-2.0) / total, y11 = 1.0 / total;
  EXPECT_TENSOR(n.out(), dt({2, 2}, {0.5, 0.5, y10, y11}));
  EXPECT_NEAR(n.out()[2] + n.out()[3], 1.0, 1e-15);
  // [x: y ⊙ (ct - Σ ct ⊙ y)] per row. Row 0, ct = [1, 0]: inner 1/2, g = [1/4, -1/4].
  const double inner = (0.0 + 2.0 * y10) + (-1.0 * y11);
  EXPECT_TRUE(termsAre(n.terms(dt({2, 2}, {1.0, 0.0, 2.0, -1.0})),
                       {{0, dt({2, 2}, {0.25, -0.25, y10 * (2.0 - inner), y11 * (-1.0 - inner)})}}));
}

TEST(Ops, SoftmaxLast_SubtractsTheRowMaximum) {
  // Without the shift exp(1000) would overflow to inf.
  auto n = run<double>(OpKind::softmax_last, {.inputs = {dt({3}, {1000.0, 1000.0, -kInf})}});
  EXPECT_TENSOR(n.out(), dt({3}, {0.5, 0.5, 0.0}));
  auto sums = run<double>(OpKind::softmax_last, {.inputs = {dt({1, 3}, {-1.0, 0.5, 2.0})}});
  EXPECT_NEAR(sums.out()[0] + sums.out()[1] + sums.out()[2], 1.0, 1e-15);
}

TEST(Ops, SoftmaxLast_NeedsAnAxis) {
  EXPECT_EQ(buildError<double>(OpKind::softmax_last, {Shape{}}), "node 1 (softmax_last): needs at least one axis");
  EXPECT_EQ(buildError<double>(OpKind::log_softmax_last, {Shape{}}),
            "node 1 (log_softmax_last): needs at least one axis");
}

TEST(Ops, LogSoftmaxLast_ForwardAndTerm) {
  auto n = run<double>(OpKind::log_softmax_last, {.inputs = {dt({2, 2}, {0.0, 0.0, 1.0, 3.0})}});
  // y = (x - max) - log(total): row 0 is [-log 2, -log 2].
  const double logTotal = std::log((0.0 + std::exp(-2.0)) + 1.0);
  const double y10 = (1.0 - 3.0) - logTotal, y11 = (3.0 - 3.0) - logTotal;
  EXPECT_TENSOR(n.out(), dt({2, 2}, {-std::log(2.0), -std::log(2.0), y10, y11}));
  EXPECT_NEAR(std::exp(y10) + std::exp(y11), 1.0, 1e-15);
  // [x: ct - exp(y)·Σ ct] per row; row 0 with ct = [1, 0]: Σ = 1; row 1 with ct = [2, -1]: Σ = 1.
  const double e = std::exp(-std::log(2.0));
  EXPECT_TRUE(termsAre(n.terms(dt({2, 2}, {1.0, 0.0, 2.0, -1.0})),
                       {{0, dt({2, 2}, {1.0 - e * 1.0, 0.0 - e * 1.0, 2.0 - std::exp(y10) * 1.0,
                                        -1.0 - std::exp(y11) * 1.0})}}));
}

TEST(Ops, LogSoftmaxLast_AgreesWithLogOfSoftmax) {
  auto x = dt({3}, {-1.0, 0.5, 2.0});
  auto logSoftmax = run<double>(OpKind::log_softmax_last, {.inputs = {x}});
  auto softmax = run<double>(OpKind::softmax_last, {.inputs = {x}});
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(logSoftmax.out()[i], std::log(softmax.out()[i]), 1e-15);
  // Large inputs stay finite.
  auto big = run<double>(OpKind::log_softmax_last, {.inputs = {dt({2}, {1000.0, 1000.0})}});
  EXPECT_TENSOR(big.out(), dt({2}, {-std::log(2.0), -std::log(2.0)}));
}

// =============================================================================================
// opaque: the built-ins const3 and twice
// =============================================================================================

//! x (position 0, shape [2]), y (position 1, shape []), then neg(x) at position 2 and the
//! opaque node at position 3 applied to `arg`.
tc::Result<OneNode<Q>> opaqueGraph(std::string_view name, std::size_t arg) {
  auto builder = GraphBuilder<Q>::create({Shape{2}, Shape{}});
  if (!builder) return std::unexpected(builder.error());
  if (auto p = builder->add(OpKind::neg, {0}); !p) return std::unexpected(p.error());
  if (auto p = builder->addOpaque(name, {arg}); !p) return std::unexpected(p.error());
  Graph<Q> graph = std::move(*builder).build();
  Pack<Q> inputs = {qt({2}, {"1/2", "-1"}), qt({}, {"7"})};
  auto context = tc::spec::eval<Q>(graph, inputs, {});
  if (!context) return std::unexpected(context.error());
  return OneNode<Q>{std::move(graph), {}, std::move(*context)};
}

TEST(Ops, OpaqueConst3_ForwardCopiesAndProgramReturnsThreeEverywhere) {
  auto n = opaqueGraph("const3", 2);
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(tc::describeNode(n->graph, 3), "node 3 (opaque const3)");
  EXPECT_TENSOR(n->out(), qt({2}, {"-1/2", "1"}));  // a copy of neg(x)
  // Three at every earlier position, whatever ct is (also a zero ct).
  for (const auto& ct : {qt({2}, {"0", "0"}), qt({2}, {"5", "-1"})}) {
    auto c = n->local(ct);
    ASSERT_TRUE(c.isDense);
    ASSERT_EQ(c.dense.size(), 3u);
    EXPECT_TENSOR(c.dense[0], qt({2}, {"3", "3"}));
    EXPECT_TENSOR(c.dense[1], qt({}, {"3"}));
    EXPECT_TENSOR(c.dense[2], qt({2}, {"3", "3"}));
  }
}

TEST(Ops, OpaqueTwice_ForwardDoublesAndProgramIsTwoCt) {
  auto n = opaqueGraph("twice", 2);
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_TENSOR(n->out(), qt({2}, {"-1", "2"}));  // 2·neg(x)
  auto c = n->local(qt({2}, {"3/4", "-5"}));
  ASSERT_TRUE(c.isDense);
  ASSERT_EQ(c.dense.size(), 3u);
  EXPECT_TENSOR(c.dense[0], qt({2}, {"0", "0"}));
  EXPECT_TENSOR(c.dense[1], qt({}, {"0"}));
  EXPECT_TENSOR(c.dense[2], qt({2}, {"3/2", "-10"}));  // 2·ct at its argument
  // On an input argument.
  auto onY = opaqueGraph("twice", 1);
  ASSERT_TRUE(onY) << onY.error().message;
  EXPECT_TENSOR(onY->out(), qt({}, {"14"}));
  auto cy = onY->local(qt({}, {"-1/3"}));
  ASSERT_EQ(cy.dense.size(), 3u);
  EXPECT_TENSOR(cy.dense[0], qt({2}, {"0", "0"}));
  EXPECT_TENSOR(cy.dense[1], qt({}, {"-2/3"}));
  EXPECT_TENSOR(cy.dense[2], qt({2}, {"0", "0"}));
}

TEST(Ops, Opaque_BuildErrors) {
  auto builder = GraphBuilder<Q>::create({Shape{2}, Shape{2}});
  ASSERT_TRUE(builder);
  auto unknown = builder->addOpaque("nope", {0});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message, "node 2 (opaque): unknown opaque name 'nope'");
  auto arity = builder->addOpaque("twice", {0, 1});
  ASSERT_FALSE(arity);
  EXPECT_EQ(arity.error().message, "node 2 (opaque twice): takes 1 arguments, got 2");
  auto later = builder->addOpaque("const3", {2});
  ASSERT_FALSE(later);
  EXPECT_EQ(later.error().message, "node 2 (opaque const3): argument 0 is position 2, which is not earlier than 2");
}

// ops::isPointwise is what lets the accuracy oracle judge a node on its finite elements alone:
// each pointwise op's output element i equals the op on the arguments' elements i by themselves
// (bit for bit on double), and no other op claims to be pointwise.
TEST(Ops, PointwiseOpsComputeEachElementFromTheArgumentsElementsAlone) {
  const std::vector<double> a{0.25, 0.5, 0.75, 1.5, 2.0, 3.0}, b{0.75, 0.5, 2.5, 1.25, 0.125, 4.0};
  std::vector<std::string> pointwise;
  for (std::size_t k = 0; k < tc::kOpCount; ++k) {
    const auto kind = static_cast<OpKind>(k);
    if (!tc::ops::isPointwise(kind)) continue;
    pointwise.emplace_back(tc::opName(kind));
    Attrs<double> attrs;
    attrs.c = 0.375, attrs.lo = 0.5, attrs.hi = 1.75;
    const std::size_t arity = tc::ops::arity(kind, attrs);
    auto inputs = [&](std::size_t from, std::size_t count) {
      Pack<double> pack;
      for (const auto* values : {&a, &b}) {
        if (pack.size() == arity) break;
        pack.push_back(Tensor<double>(count == 1 ? Shape{1} : Shape{2, 3},
                                      std::vector<double>(values->begin() + from, values->begin() + from + count)));
      }
      return pack;
    };
    const Tensor<double> whole = run(kind, NodeCase<double>{inputs(0, 6), attrs}).out();
    ASSERT_EQ(whole.shape, (Shape{2, 3})) << tc::opName(kind);
    for (std::size_t i = 0; i < 6; ++i) {
      const Tensor<double> alone = run(kind, NodeCase<double>{inputs(i, 1), attrs}).out();
      EXPECT_EQ(std::bit_cast<std::uint64_t>(alone[0]), std::bit_cast<std::uint64_t>(whole[i]))
          << tc::opName(kind) << " element " << i;
    }
  }
  EXPECT_EQ(pointwise, (std::vector<std::string>{"add", "sub", "mul", "div", "max", "min", "neg", "square", "scale",
                                                 "inv", "relu", "abs", "clamp", "exp", "log", "sqrt", "tanh",
                                                 "sigmoid", "softplus", "sin", "cos"}));
}

}  // namespace
