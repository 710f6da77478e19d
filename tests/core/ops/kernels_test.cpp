// The dense kernels (core/ops/kernels.h) against the literal loops of docs/semantics.md §2.2: every
// inner sum a left fold from +0 in increasing index order, every product formed before it is
// added. The kernels choose which outputs advance together (and on IEEE carriers put them in
// vector lanes); that must not change a single bit. Values include ±0, ±inf, NaN, subnormals and
// magnitudes whose sums round differently in another order; shapes cover every remainder of the
// kernels' blocks (rows by 4, columns by 4 and 8 doubles or 8 and 16 floats).
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/carriers/carrier.h"
#include "core/graph/builder.h"
#include "core/graph/node_program.h"
#include "core/ops/kernels.h"

namespace {

using tc::Carrier;
using tc::Graph;
using tc::GraphBuilder;
using tc::OpKind;
using tc::Pack;
using tc::Shape;
using tc::Tensor;

template <class T>
T valueFrom(std::mt19937_64& rng) {
  if constexpr (std::is_floating_point_v<T>) {
    static const T specials[] = {T(0),
                              -T(0),
                              std::numeric_limits<T>::infinity(),
                              -std::numeric_limits<T>::infinity(),
                              std::numeric_limits<T>::quiet_NaN(),
                              std::numeric_limits<T>::denorm_min(),
                              -std::numeric_limits<T>::denorm_min() * 3,
                              std::ldexp(T(1), -20),
                              std::ldexp(T(1), 24),
                              -std::ldexp(T(1), 24),
                              T(1),
                              T(-1)};
    std::uniform_int_distribution<int> pick(0, 99);
    const int which = pick(rng);
    if (which < 12) return specials[which];  // about one value in eight is special
    std::uniform_real_distribution<T> uniform(T(-4), T(4));
    return uniform(rng);  // sums of these round, so the order of additions shows in the bits
  } else {
    std::uniform_int_distribution<int> pick(-9, 9);
    return Carrier<T>::fromInt(pick(rng)) / Carrier<T>::fromInt(pick(rng) % 4 == 0 ? 1 : 3);
  }
}

template <class T>
Tensor<T> randomTensor(const Shape& shape, std::mt19937_64& rng) {
  std::vector<T> values;
  for (std::size_t i = 0; i < tc::elementCount(shape); ++i) values.push_back(valueFrom<T>(rng));
  return Tensor<T>(shape, std::move(values));
}

//! Equal as the properties compare (bit patterns on IEEE carriers; two NaNs are equal), and on
//! IEEE carriers the same bits whenever either is not a NaN.
template <class T>
::testing::AssertionResult sameValues(const Tensor<T>& expected, const Tensor<T>& actual, const std::string& what) {
  if (!(expected.shape == actual.shape)) return ::testing::AssertionFailure() << what << ": shapes differ";
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (!Carrier<T>::same(expected[i], actual[i]))
      return ::testing::AssertionFailure() << what << ": value " << i << ": " << Carrier<T>::format(expected[i])
                                           << " (literal loop) vs " << Carrier<T>::format(actual[i]) << " (kernel)";
  return ::testing::AssertionSuccess();
}

// The literal loops: c[i, j] = (((+0 + x(i, 0)·y(0, j)) + x(i, 1)·y(1, j)) + ...).
template <class T, class X, class Y>
Tensor<T> literalProducts(const Shape& shape, std::size_t m, std::size_t depth, std::size_t n, X x, Y y) {
  std::vector<T> out;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      T acc = tc::zero<T>();
      for (std::size_t p = 0; p < depth; ++p) acc = acc + x(i, p) * y(p, j);
      out.push_back(acc);
    }
  return Tensor<T>(shape, std::move(out));
}

//! The node at the last position of `graph` on the context `inputs`: its value and the terms of
//! its program on cotangent `ct`, one tensor per argument position.
template <class T>
struct NodeRun {
  Tensor<T> value;
  std::vector<Tensor<T>> terms;
};

template <class T>
NodeRun<T> runLastNode(const Graph<T>& graph, Pack<T> context, const Tensor<T>& ct) {
  const std::size_t node = graph.positionCount() - 1;
  NodeRun<T> run{tc::forwardAt(graph, std::span<const Tensor<T>>(context), {}, node), {}};
  context.push_back(run.value);
  tc::LocalContribution<T> c = tc::localContribution(graph, std::span<const Tensor<T>>(context), {}, node, ct);
  for (auto& [position, term] : c.support) run.terms.push_back(term);
  return run;
}

//! The forward of a matmul of `a` [m, k] and `y` [k, n], and its terms on `ct` [m, n], against the
//! literal loops.
template <class T>
void expectMatmulEqualsTheLiteralLoops(const Tensor<T>& a, const Tensor<T>& y, const Tensor<T>& ct,
                                       const std::string& where) {
  const std::size_t m = a.shape[0], k = a.shape[1], n = y.shape[1];
  auto b = *GraphBuilder<T>::create({{m, k}, {k, n}});
  ASSERT_TRUE(b.add(OpKind::matmul, {0, 1}));
  NodeRun<T> run = runLastNode(std::move(b).build(), {a, y}, ct);
  EXPECT_TRUE(sameValues(literalProducts<T>({m, n}, m, k, n, [&](auto i, auto l) { return a[i * k + l]; },
                                            [&](auto l, auto j) { return y[l * n + j]; }),
                         run.value, where + " forward"));
  ASSERT_EQ(run.terms.size(), 2u);
  EXPECT_TRUE(sameValues(literalProducts<T>({m, k}, m, n, k, [&](auto i, auto j) { return ct[i * n + j]; },
                                            [&](auto j, auto l) { return y[l * n + j]; }),
                         run.terms[0], where + " term of a (ct·bᵀ)"));
  EXPECT_TRUE(sameValues(literalProducts<T>({k, n}, k, m, n, [&](auto l, auto i) { return a[i * k + l]; },
                                            [&](auto i, auto j) { return ct[i * n + j]; }),
                         run.terms[1], where + " term of b (aᵀ·ct)"));
}

template <class T>
class DenseKernels : public ::testing::Test {};
using Carriers = ::testing::Types<double, float, tc::Rational>;
TYPED_TEST_SUITE(DenseKernels, Carriers);

const std::vector<std::size_t> kSizes{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33};

TYPED_TEST(DenseKernels, MatmulEqualsTheLiteralLoops) {
  using T = TypeParam;
  std::mt19937_64 rng(7);
  for (std::size_t m : kSizes)
    for (std::size_t k : {std::size_t{1}, std::size_t{3}, std::size_t{8}, std::size_t{17}})
      for (std::size_t n : kSizes) {
        Tensor<T> a = randomTensor<T>({m, k}, rng), y = randomTensor<T>({k, n}, rng), ct = randomTensor<T>({m, n}, rng);
        expectMatmulEqualsTheLiteralLoops(a, y, ct, "[" + std::to_string(m) + ", " + std::to_string(k) + "] x [" +
                                                        std::to_string(k) + ", " + std::to_string(n) + "]");
      }
}

// Folds longer than the kernels' blocks of 128 steps and more than 64 rows: partial sums are
// stored and continued, which must change no bit either; fewer rows than a tile fold unpacked.
TYPED_TEST(DenseKernels, LargeMatmulEqualsTheLiteralLoops) {
  using T = TypeParam;
  if constexpr (std::is_floating_point_v<T>) {
    std::mt19937_64 rng(17);
    for (auto [m, k, n] : {std::array<std::size_t, 3>{130, 300, 19}, std::array<std::size_t, 3>{5, 513, 33},
                           std::array<std::size_t, 3>{3, 300, 37}}) {
      Tensor<T> a = randomTensor<T>({m, k}, rng), y = randomTensor<T>({k, n}, rng), ct = randomTensor<T>({m, n}, rng);
      expectMatmulEqualsTheLiteralLoops(a, y, ct, std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
    }
  }
}

// Zero rows of x and zero columns of y (the kernel gives +0 there without folding when the other
// operand is finite: a zero probe, a seed on one element) with zeros of both signs; then with an
// infinity in b and a NaN in a, where 0·∞ is a NaN and those outputs must fold as the loops do.
template <class T>
class IeeeKernels : public ::testing::Test {};
using IeeeCarriers = ::testing::Types<double, float>;
TYPED_TEST_SUITE(IeeeKernels, IeeeCarriers);

TYPED_TEST(IeeeKernels, MatmulWithLinesOfZerosEqualsTheLiteralLoops) {
  using T = TypeParam;
  std::mt19937_64 rng(23);
  auto finite = [&](const Shape& shape) {
    std::vector<T> values;
    std::uniform_int_distribution<int> pick(-9, 9);
    for (std::size_t i = 0; i < tc::elementCount(shape); ++i)
      values.push_back(Carrier<T>::fromInt(pick(rng)) / Carrier<T>::fromInt(3));
    return Tensor<T>(shape, std::move(values));
  };
  auto signedZero = [](std::size_t i) { return i % 2 == 0 ? tc::zero<T>() : tc::zero<T>() * Carrier<T>::fromInt(-1); };
  for (auto [m, k, n] : {std::array<std::size_t, 3>{9, 17, 13}, std::array<std::size_t, 3>{130, 140, 19},
                         std::array<std::size_t, 3>{2, 5, 40}})
    for (bool special : {false, true}) {
      Tensor<T> a = finite({m, k}), y = finite({k, n}), ct = finite({m, n});
      for (std::size_t l = 0; l < k; ++l) a[1 * k + l] = signedZero(l);          // a row of a
      for (std::size_t l = 0; l < k; ++l) y[l * n + n - 1] = signedZero(l + 1);  // a column of b
      for (std::size_t j = 0; j < n; ++j) ct[0 * n + j] = signedZero(j);         // a row and a column of ct
      for (std::size_t i = 0; i < m; ++i) ct[i * n + 2 % n] = signedZero(i);
      if (special) y[0] = std::numeric_limits<T>::infinity(), a[m * k - 1] = std::numeric_limits<T>::quiet_NaN();
      const std::string where = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) +
                                (special ? " with inf and NaN" : "");
      expectMatmulEqualsTheLiteralLoops(a, y, ct, where);
      Tensor<T> oneHot = Tensor<T>::filled(ct.shape, tc::zero<T>());
      oneHot[m * n / 2] = tc::one<T>();
      expectMatmulEqualsTheLiteralLoops(a, y, oneHot, where + " on a one-element seed");
      expectMatmulEqualsTheLiteralLoops(a, y, Tensor<T>::filled(ct.shape, tc::zero<T>()), where + " on a zero cotangent");
    }
}

TYPED_TEST(DenseKernels, MatrixVectorProductsEqualTheLiteralLoops) {
  using T = TypeParam;
  std::mt19937_64 rng(11);
  for (std::size_t m : kSizes)
    for (std::size_t k : kSizes) {
      const std::string where = "[" + std::to_string(m) + ", " + std::to_string(k) + "]";
      Tensor<T> w = randomTensor<T>({m, k}, rng), x = randomTensor<T>({k}, rng), bias = randomTensor<T>({m}, rng);
      Tensor<T> ct = randomTensor<T>({m}, rng);
      auto column = [&](auto l, auto) { return x[l]; };
      auto wAt = [&](auto i, auto l) { return w[i * k + l]; };
      {  // matmul with a vector: the a term is the outer product ct ⊗ b
        auto b = *GraphBuilder<T>::create({{m, k}, {k}});
        ASSERT_TRUE(b.add(OpKind::matmul, {0, 1}));
        NodeRun<T> run = runLastNode(std::move(b).build(), {w, x}, ct);
        EXPECT_TRUE(sameValues(literalProducts<T>({m}, m, k, 1, wAt, column), run.value, where + " matmul forward"));
        EXPECT_TRUE(sameValues(literalProducts<T>({k}, k, m, 1, [&](auto l, auto i) { return w[i * k + l]; },
                                                  [&](auto i, auto) { return ct[i]; }),
                               run.terms[1], where + " matmul term of b"));
      }
      {  // linear: (Σ_l W·x) + b, and the x term Wᵀ·ct formed as W[i, l]·ct[i]
        auto b = *GraphBuilder<T>::create({{m, k}, {k}, {m}});
        ASSERT_TRUE(b.add(OpKind::linear, {0, 1, 2}));
        NodeRun<T> run = runLastNode(std::move(b).build(), {w, x, bias}, ct);
        Tensor<T> folds = literalProducts<T>({m}, m, k, 1, wAt, column);
        for (std::size_t i = 0; i < m; ++i) folds[i] = folds[i] + bias[i];
        EXPECT_TRUE(sameValues(folds, run.value, where + " linear forward"));
        std::vector<T> gx;
        for (std::size_t l = 0; l < k; ++l) {
          T acc = tc::zero<T>();
          for (std::size_t i = 0; i < m; ++i) acc = acc + w[i * k + l] * ct[i];
          gx.push_back(acc);
        }
        EXPECT_TRUE(sameValues(Tensor<T>({k}, std::move(gx)), run.terms[1], where + " linear term of x"));
      }
    }
}

TYPED_TEST(DenseKernels, SumAxisEqualsTheLiteralLoop) {
  using T = TypeParam;
  std::mt19937_64 rng(13);
  const Shape shape{3, 5, 4};
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    auto b = *GraphBuilder<T>::create({shape});
    tc::Attrs<T> attrs;
    attrs.axis = axis;
    ASSERT_TRUE(b.add(OpKind::sum_axis, {0}, attrs));
    Graph<T> g = std::move(b).build();
    Tensor<T> x = randomTensor<T>(shape, rng);
    Shape outShape = g.shapeAt(1);
    std::size_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < axis; ++d) outer *= shape[d];
    for (std::size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
    std::vector<T> expected;
    for (std::size_t o = 0; o < outer; ++o)
      for (std::size_t i = 0; i < inner; ++i) {
        T acc = tc::zero<T>();
        for (std::size_t j = 0; j < shape[axis]; ++j) acc = acc + x[(o * shape[axis] + j) * inner + i];
        expected.push_back(acc);
      }
    NodeRun<T> run = runLastNode(g, {x}, randomTensor<T>(outShape, rng));
    EXPECT_TRUE(sameValues(Tensor<T>(outShape, std::move(expected)), run.value, "sum_axis " + std::to_string(axis)));
  }
}

// On intervals, a product of point matrices whose every operation double arithmetic holds
// exactly is folded in double, and one of other points holding doubles as exact sums enclosed once
// (kernels::foldProductsOfDoubles): MPFI's fold gives the same exact points where 257 bits hold
// every partial sum. Each case states whether it folds in double, so that every path is compared.
struct IntervalMatmul {
  std::string name;
  std::size_t m, k, n;
  std::function<tc::Interval(std::size_t)> a, b, ct;  // value of element i
  bool exactInDouble;                                    // of the forward's fold
  bool beyond257Bits = false;  // MPFI's fold rounds: the result is the narrowest enclosure of the exact value
};

// The exact value of each of `products`' elements (all points holding doubles) enclosed once.
Tensor<tc::Interval> enclosedExactly(const Shape& shape, std::size_t m, std::size_t depth, std::size_t n,
                                     const std::function<tc::Interval(std::size_t, std::size_t)>& x,
                                     const std::function<tc::Interval(std::size_t, std::size_t)>& y) {
  auto exact = [](const tc::Interval& v) { return tc::Rational(*tc::exactDouble(v)); };
  Tensor<tc::Rational> q = literalProducts<tc::Rational>(shape, m, depth, n, [&](auto i, auto p) { return exact(x(i, p)); },
                                                         [&](auto p, auto j) { return exact(y(p, j)); });
  std::vector<tc::Interval> enclosed;
  for (const tc::Rational& v : q.values) enclosed.push_back(tc::enclose(v, v));
  return Tensor<tc::Interval>(shape, std::move(enclosed));
}

tc::Interval point(double d) { return Carrier<tc::Interval>::fromDouble(d); }

TEST(DenseKernelsOnIntervals, FoldsInDoubleOnlyWhereExactAndEqualMpfisFold) {
  std::mt19937_64 rng(23);
  auto smallDyadic = [&](std::size_t) { return point(std::uniform_int_distribution<int>(-8, 8)(rng) / 4.0); };
  auto one = [](std::size_t) { return point(1); };
  const double justBelow = std::ldexp(1.0, 52) - 1;  // three of them add to 3·2^52 − 3: 54 bits
  const std::vector<IntervalMatmul> cases = {
      {"small dyadic values", 9, 17, 33, smallDyadic, smallDyadic, smallDyadic, true},
      {"small dyadic values, long folds", 70, 300, 19, smallDyadic, smallDyadic, smallDyadic, true},
      {"a vector", 5, 3, 1, smallDyadic, smallDyadic, smallDyadic, true},
      {"partial sums beyond 53 bits", 1, 3, 1, [&](std::size_t) { return point(justBelow); }, one, one, false},
      {"a value no double holds", 4, 5, 6,
       [&](std::size_t i) { return i == 7 ? Carrier<tc::Interval>::fromInt(1) / Carrier<tc::Interval>::fromInt(3) : point(2); },
       one, one, false},
      {"an interval that is not a point", 3, 4, 5,
       [&](std::size_t i) { return i == 0 ? tc::enclose(tc::Rational(1, 4), tc::Rational(1, 2)) : point(1); }, one, one,
       false},
      {"products below 2^-1074", 2, 2, 2, [&](std::size_t) { return point(std::ldexp(1.0, -600)); },
       [&](std::size_t) { return point(std::ldexp(1.0, -600)); }, one, false},
      {"partial sums spanning 2^-2148 to 2^2047", 3, 4, 2,
       [&](std::size_t i) { return point(i % 2 ? std::numeric_limits<double>::denorm_min() : 0.1 * (i + 1)); },
       [&](std::size_t i) {
         return point(i % 3 == 0 ? -std::numeric_limits<double>::max() / 8 : std::numeric_limits<double>::denorm_min());
       },
       [&](std::size_t i) { return point(i % 2 ? 1e-300 : -1e300); }, false, true},
  };
  for (const IntervalMatmul& c : cases) {
    auto tensor = [](const Shape& shape, const std::function<tc::Interval(std::size_t)>& at) {
      std::vector<tc::Interval> values;
      for (std::size_t i = 0; i < tc::elementCount(shape); ++i) values.push_back(at(i));
      return Tensor<tc::Interval>(shape, std::move(values));
    };
    const Shape bShape = c.n == 1 ? Shape{c.k} : Shape{c.k, c.n}, outShape = c.n == 1 ? Shape{c.m} : Shape{c.m, c.n};
    Tensor<tc::Interval> a = tensor({c.m, c.k}, c.a), y = tensor(bShape, c.b), ct = tensor(outShape, c.ct);
    auto doubles = [](const Tensor<tc::Interval>& x) {
      return tc::kernels::exactDoubles(x.values.data(), 1, x.size(), x.size(), 1);
    };
    const auto as = doubles(a), ys = doubles(y);
    EXPECT_EQ(as && ys && tc::kernels::foldIsExactInDouble(*as, *ys, c.k), c.exactInDouble) << c.name;
    auto b = *GraphBuilder<tc::Interval>::create({{c.m, c.k}, bShape});
    ASSERT_TRUE(b.add(OpKind::matmul, {0, 1}));
    NodeRun<tc::Interval> run = runLastNode(std::move(b).build(), {a, y}, ct);
    const std::size_t n = c.n;
    auto aAt = [&](std::size_t i, std::size_t l) { return a[i * c.k + l]; };
    auto yAt = [&](std::size_t l, std::size_t j) { return y[l * n + j]; };
    auto aTransposedAt = [&](std::size_t l, std::size_t i) { return a[i * c.k + l]; };
    auto ctAt = [&](std::size_t i, std::size_t j) { return ct[i * n + j]; };
    const Tensor<tc::Interval> mpfiForward = literalProducts<tc::Interval>(outShape, c.m, c.k, n, aAt, yAt);
    const Tensor<tc::Interval> mpfiTerm = literalProducts<tc::Interval>({c.k, n}, c.k, c.m, n, aTransposedAt, ctAt);
    const Tensor<tc::Interval> termOfB({c.k, n}, run.terms[1].values);
    if (!c.beyond257Bits) {
      EXPECT_TRUE(sameValues(mpfiForward, run.value, c.name + ": forward"));
      EXPECT_TRUE(sameValues(mpfiTerm, termOfB, c.name + ": term of b (aᵀ·ct)"));
      continue;
    }
    EXPECT_TRUE(sameValues(enclosedExactly(outShape, c.m, c.k, n, aAt, yAt), run.value, c.name + ": forward"));
    EXPECT_TRUE(sameValues(enclosedExactly({c.k, n}, c.k, c.m, n, aTransposedAt, ctAt), termOfB, c.name + ": term of b"));
    for (std::size_t i = 0; i < run.value.size(); ++i) {  // MPFI's fold is wider, and holds the exact one
      EXPECT_FALSE(run.value[i] == mpfiForward[i]) << c.name << ": element " << i;
      EXPECT_LE(tc::relativeWidth(run.value[i]), tc::relativeWidth(mpfiForward[i])) << c.name << ": element " << i;
      EXPECT_TRUE(tc::overlap(run.value[i], mpfiForward[i])) << c.name << ": element " << i;
    }
  }
}

}  // namespace

namespace {

// Products of 2^24 multiply-adds or more split their rows between threads: every output must be
// the one the same rows give alone (in blocks of 4, too small to split), bit for bit on IEEE values
// with specials, and as the same exact sum on doubles that no double fold holds.
TEST(DenseKernelsOnThreads, ALargeProductSplitBetweenThreadsEqualsItsRowsAlone) {
  constexpr std::size_t m = 258, depth = 256, n = 257;  // m·depth·n ≥ 2^24
  std::mt19937_64 rng(31);
  const Tensor<double> x = randomTensor<double>({m, depth}, rng), y = randomTensor<double>({depth, n}, rng);
  std::vector<double> whole(m * n), alone(m * n);
  tc::kernels::foldProductsIeee(x.values.data(), depth, 1, y.values.data(), m, depth, n, whole.data());
  for (std::size_t i = 0; i < m; i += 4) {
    const std::size_t rows = std::min<std::size_t>(4, m - i);
    tc::kernels::foldProductsIeee(x.values.data() + i * depth, depth, 1, y.values.data(), rows, depth, n,
                                  alone.data() + i * n);
  }
  for (std::size_t i = 0; i < m * n; ++i)
    ASSERT_TRUE(Carrier<double>::same(whole[i], alone[i])) << "output " << i << ": " << whole[i] << " vs " << alone[i];

  std::uniform_real_distribution<double> uniform(-1, 1);  // finite, and no fold of them is exact in double
  std::vector<double> xs(m * depth), ys(depth * n);
  for (double& v : xs) v = std::ldexp(uniform(rng), std::uniform_int_distribution<int>(-60, 60)(rng));
  for (double& v : ys) v = uniform(rng);
  auto exactly = [&](std::size_t rowBegin, std::size_t rows) {
    std::vector<tc::ExactProductSum::Value> sums(rows * n);
    tc::kernels::foldProductsExactly(xs.data() + rowBegin * depth, rows, depth, ys.data(), n,
                                     [&](std::size_t i, const tc::ExactProductSum::Value& v) { sums[i] = v; });
    return sums;
  };
  const std::vector<tc::ExactProductSum::Value> sums = exactly(0, m);
  for (std::size_t i = 0; i < m; i += 4) {
    const std::size_t rows = std::min<std::size_t>(4, m - i);
    const std::vector<tc::ExactProductSum::Value> block = exactly(i, rows);
    for (std::size_t o = 0; o < rows * n; ++o) {
      const tc::ExactProductSum::Value& a = sums[i * n + o];
      const tc::ExactProductSum::Value& b = block[o];
      ASSERT_TRUE(a.negative == b.negative && a.digits == b.digits && a.exponent == b.exponent) << "exact output " << i * n + o;
    }
  }
}

}  // namespace

namespace {

// kernels::ieeeProductNs, per multiply-add, against the kernel's parts it counts (measured figures
// in bench/RESULTS.md, "The estimate of a matrix product").
double perMultiplyAdd(std::size_t m, std::size_t depth, std::size_t n, std::size_t valueBytes = sizeof(double)) {
  return tc::kernels::ieeeProductNs(m, depth, n, valueBytes) /
         (static_cast<double>(m) * static_cast<double>(depth) * static_cast<double>(n));
}

TEST(ProductEstimate, CountsEachPartOfTheKernel) {
  // 8 × 16 × 32 doubles: all in tiles of 4 rows by two vectors (0.06 a multiply-add), 8 · 16 values
  // of x and 16 · 32 of y packed (0.45 each), 256 outputs written (1.6 each), one call (50).
  EXPECT_DOUBLE_EQ(tc::kernels::ieeeProductNs(8, 16, 32, sizeof(double)),
                   8 * 16 * 32 * 0.06 + (8 * 16 + 16 * 32) * 0.45 + 256 * 1.6 + 50);
  // 5 × 16 × 13 floats (8 lanes): rows 0-3 in tiles of one vector panel (0.15 a multiply-add), row 4
  // alone (0.15), the last 5 columns one output at a time (0.8); 5 · 16 + 16 · 8 values packed,
  // 65 outputs at 0.8.
  EXPECT_DOUBLE_EQ(tc::kernels::ieeeProductNs(5, 16, 13, sizeof(float)),
                   4 * 16 * 8 * 0.15 + 1 * 16 * 8 * 0.15 + 5 * 16 * 5 * 0.8 + (5 * 16 + 16 * 8) * 0.45 + 65 * 0.8 + 50);
}

TEST(ProductEstimate, ALargeProductCountsItsTilesAtAboutTheirSpeed) {
  // 0.06 a multiply-add in tiles, the packing and the outputs adding under a tenth at this size.
  EXPECT_GE(perMultiplyAdd(512, 512, 512), 0.06);
  EXPECT_LT(perMultiplyAdd(512, 512, 512), 0.066);
  // Floats fold twice as many lanes a vector.
  EXPECT_GE(perMultiplyAdd(512, 512, 512, sizeof(float)), 0.03);
  EXPECT_LT(perMultiplyAdd(512, 512, 512, sizeof(float)), 0.036);
}

TEST(ProductEstimate, WhatTheTilesLeaveCostsMore) {
  // Fewer rows than a tile: row by row, at 0.3 a multiply-add; four rows fold in tiles.
  EXPECT_GE(perMultiplyAdd(3, 512, 512), 0.3);
  EXPECT_LT(perMultiplyAdd(4, 512, 512), 0.2);
  // Columns left beside the vectors: one output at a time, 0.8 a multiply-add.
  EXPECT_GE(perMultiplyAdd(512, 512, 3), 0.8);
  EXPECT_GE(perMultiplyAdd(512, 512, 9) * 9, perMultiplyAdd(512, 512, 8) * 8 + 0.8);
  // A single vector of columns: a one-vector panel, 0.3; two vectors fold in tiles.
  EXPECT_GE(perMultiplyAdd(512, 512, 4), 0.3);
  EXPECT_LT(perMultiplyAdd(512, 512, 8), 0.15);
  // Four columns are a vector of doubles but half a vector of floats.
  EXPECT_LT(perMultiplyAdd(512, 512, 4), 0.5);
  EXPECT_GE(perMultiplyAdd(512, 512, 4, sizeof(float)), 0.8);
  // A short fold: every output written costs 1.6 (a float 0.8), here once per multiply-add.
  EXPECT_GE(perMultiplyAdd(512, 1, 512), 1.6);
  EXPECT_GE(perMultiplyAdd(512, 1, 512, sizeof(float)), 0.8);
  EXPECT_LT(perMultiplyAdd(512, 1, 512, sizeof(float)), 1.0);
}

TEST(ProductEstimate, PackingFromMemoryCostsTwiceAsMuch) {
  // Four rows read each value of y packed once: 0.45 a value while y fits in 8 MiB, 0.9 beyond.
  EXPECT_NEAR(perMultiplyAdd(4, 512, 512) - perMultiplyAdd(8, 512, 512), 0.45 / 4 - 0.45 / 8, 0.002);
  EXPECT_NEAR(perMultiplyAdd(4, 2048, 2048) - perMultiplyAdd(8, 2048, 2048), 0.9 / 4 - 0.9 / 8, 0.002);
}

}  // namespace
