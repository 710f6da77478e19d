// The magnitudes the accuracy budgets of sums of products scale with (core/ops/accuracy.h): where
// every value is a double, magnitudeBoundFromDoubles bounds |a|·|b| from its IEEE evaluation, and
// termsOnAbsoluteFromDoubles the terms on absolute values (|ct|·|b|ᵀ, |a|ᵀ·|ct|) from theirs.
// The bound must hold the exact magnitude at every element (round to nearest errs both ways, and
// products below 2^-1022 err absolutely) and stay within about (1 + 2γ_k)·M + 2k·η of it.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "core/carriers/interval.h"
#include "core/graph/builder.h"
#include "core/graph/node_program.hpp"
#include "core/io/case_file.h"
#include "core/ops/library.hpp"
#include "core/runtime/compiled.h"
#include "generators/generate.h"
#include "properties/oracles/accuracy.h"

namespace {

using tc::Carrier;
using tc::Interval;
using tc::Shape;
using tc::Tensor;

Tensor<Interval> pointsOf(const Shape& shape, const std::vector<double>& values) {
  std::vector<Interval> points;
  for (double d : values) points.push_back(Carrier<Interval>::fromDouble(d));
  return Tensor<Interval>(shape, std::move(points));
}

// A matmul's call on a and b, with output shape `out` and no attributes, data or conventions.
class MatmulCall {
 public:
  MatmulCall(const Tensor<Interval>& a, const Tensor<Interval>& b, Shape out) : out_(std::move(out)), args_{&a, &b} {}
  MatmulCall(const MatmulCall&) = delete;  // the call points into this object
  tc::OpCall<Interval> call() const { return {attrs_, out_, args_, schema_, data_, conventions_}; }

 private:
  tc::Attrs<Interval> attrs_;
  tc::Data<Interval> data_;
  tc::DataSchema schema_;
  tc::Conventions conventions_;
  Shape out_;
  std::array<const Tensor<Interval>*, 2> args_;
};

struct Draw {
  std::string name;
  double scale;  // values are scale·(uniform in [-1, 1]) with random low bits: sums round in double
};

TEST(MagnitudeBound, HoldsTheExactMagnitudeOfAMatmulWithinAFactorOfAbout1Plus2GammaK) {
  const tc::ops::RoundingModel<Interval> model = tc::props::roundingModelOf(tc::props::ieeeFormatOf<double>());
  std::mt19937_64 rng(5);
  constexpr std::size_t m = 6, k = 300, n = 7;
  for (const Draw& draw : {Draw{"values near 1", 1.0}, Draw{"products below 2^-1022 (subnormal)", 1e-160}}) {
    std::uniform_real_distribution<double> uniform(-1, 1);
    auto values = [&](std::size_t count) {
      std::vector<double> out;
      for (std::size_t i = 0; i < count; ++i) out.push_back(draw.scale * uniform(rng));
      return out;
    };
    const Tensor<Interval> a = pointsOf({m, k}, values(m * k)), b = pointsOf({k, n}, values(k * n));
    const MatmulCall matmul(a, b, {m, n});
    const tc::OpCall<Interval> call = matmul.call();
    const Tensor<Interval> exact = tc::ops::forwardOnAbsolute<tc::ops::Matmul>(call);
    const std::optional<Tensor<Interval>> bound = tc::ops::magnitudeBoundFromDoubles<tc::ops::Matmul>(call, k, model);
    ASSERT_TRUE(bound) << draw.name;
    const Interval gamma = model.gamma(Carrier<Interval>::fromInt(k));
    const Interval loose = Carrier<Interval>::fromInt(1) + Carrier<Interval>::fromInt(3) * gamma;
    for (std::size_t i = 0; i < exact.size(); ++i) {
      EXPECT_FALSE(tc::certainlyPositive(exact[i] - (*bound)[i])) << draw.name << ": element " << i;
      EXPECT_TRUE(tc::certainlyPositive((*bound)[i] - exact[i])) << draw.name << ": element " << i;
      EXPECT_TRUE(tc::certainlyPositive(exact[i] * loose + Carrier<Interval>::fromInt(3 * k) * model.eta - (*bound)[i]))
          << draw.name << ": element " << i << " is bounded too loosely";
    }
  }
}

TEST(MagnitudeBound, BoundsTheTermsOfAMatmulOnAbsoluteValuesAboveTheirExactValues) {
  const tc::ops::RoundingModel<Interval> model = tc::props::roundingModelOf(tc::props::ieeeFormatOf<double>());
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> uniform(-1, 1);
  constexpr std::size_t m = 5, k = 9, n = 260;  // a's term sums n products, b's m
  auto values = [&](const Shape& shape, double scale) {
    std::vector<double> out;
    for (std::size_t i = 0; i < tc::elementCount(shape); ++i) out.push_back(scale * uniform(rng));
    return pointsOf(shape, out);
  };
  for (double scale : {1.0, 1e-160}) {
    const Tensor<Interval> a = values({m, k}, scale), b = values({k, n}, scale), ct = values({m, n}, scale);
    const MatmulCall matmul(a, b, {m, n});
    const tc::OpCall<Interval> call = matmul.call();
    tc::Terms<Interval> exact, bounds;
    tc::ops::termsOnAbsolute<tc::ops::Matmul>(call, ct, exact);
    auto roundingsOf = [&](std::size_t arg) { return tc::ops::Matmul::termRoundingsAt(call, arg); };
    ASSERT_TRUE(tc::ops::termsOnAbsoluteFromDoubles<tc::ops::Matmul>(call, ct, model, roundingsOf, bounds));
    ASSERT_EQ(bounds.size(), exact.size());
    for (std::size_t t = 0; t < exact.size(); ++t) {
      ASSERT_EQ(bounds[t].arg, exact[t].arg);
      ASSERT_EQ(bounds[t].value.shape, exact[t].value.shape);
      for (std::size_t i = 0; i < exact[t].value.size(); ++i)
        EXPECT_TRUE(tc::certainlyPositive(bounds[t].value[i] - exact[t].value[i]))
            << "scale " << scale << ", term of argument " << exact[t].arg << ", element " << i;
    }
  }
}

// The terms on absolute values are formed without the op's output (termsOnAbsolute passes none:
// the accuracy oracle holds it as an interval of reals within budget, not a point), so an op whose
// terms sum (OpBase::termsSum) must not read it: its terms are the same with and without it.
TEST(TermsOnAbsolute, TermsThatSumNeverReadTheOutput) {
  std::vector<tc::OpKind> summing;
  for (std::size_t k = 0; k < tc::kOpCount; ++k)
    if (tc::ops::termsSum(static_cast<tc::OpKind>(k))) summing.push_back(static_cast<tc::OpKind>(k));
  ASSERT_FALSE(summing.empty());
  std::set<tc::OpKind> seen;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    auto c = tc::parseCase<double>(tc::gen::randomCase<double>(seed, 60, {summing}).dump());
    ASSERT_TRUE(c) << c.error().message;
    auto compiled = tc::compileChecked(c->graph, *c->inputs, c->data);
    ASSERT_TRUE(compiled) << compiled.error().message;
    const tc::Context<double>& context = compiled->context();
    for (std::size_t k = c->graph.inputs.size(); k < c->graph.positionCount(); ++k) {
      const tc::Node<double>& node = c->graph.nodeAt(k);
      if (!tc::ops::termsSum(node.op)) continue;
      seen.insert(node.op);
      const auto args = tc::detail::argumentValues(node, std::span<const Tensor<double>>(context));
      const tc::OpCall<double> call = tc::callOf<double>(c->graph, node, args, c->data);
      const Tensor<double> ct = Tensor<double>::filled(context[k].shape, 1.5);
      tc::Terms<double> withOutput, without;
      tc::nodeTerms(node.op, call, context[k], ct, withOutput);
      tc::nodeTerms(node.op, call, Tensor<double>{}, ct, without);
      ASSERT_EQ(withOutput.size(), without.size()) << tc::opName(node.op);
      for (std::size_t t = 0; t < without.size(); ++t) {
        EXPECT_EQ(withOutput[t].arg, without[t].arg) << tc::opName(node.op);
        EXPECT_EQ(withOutput[t].value.shape, without[t].value.shape) << tc::opName(node.op);
        auto bits = [](const Tensor<double>& x) {  // NaN equals itself bit for bit
          std::vector<std::uint64_t> out;
          for (double v : x.values) out.push_back(std::bit_cast<std::uint64_t>(v));
          return out;
        };
        EXPECT_EQ(bits(withOutput[t].value), bits(without[t].value)) << tc::opName(node.op) << ", seed " << seed;
      }
    }
  }
  EXPECT_EQ(seen, std::set<tc::OpKind>(summing.begin(), summing.end())) << "every op whose terms sum was drawn";
}

TEST(MagnitudeBound, IsNothingWhereAnArgumentIsNotAFiniteDoubleOrTheIeeeSumOverflows) {
  const tc::ops::RoundingModel<Interval> model = tc::props::roundingModelOf(tc::props::ieeeFormatOf<double>());
  auto boundOf = [&](const Tensor<Interval>& a, const Tensor<Interval>& b) {
    return tc::ops::magnitudeBoundFromDoubles<tc::ops::Matmul>(MatmulCall(a, b, {1}).call(), 2, model);
  };
  const Tensor<Interval> third({1, 2}, {Carrier<Interval>::fromInt(1) / Carrier<Interval>::fromInt(3), Carrier<Interval>::fromInt(1)});
  EXPECT_FALSE(boundOf(third, pointsOf({2}, {1, 1})));
  EXPECT_FALSE(boundOf(pointsOf({1, 2}, {1e300, 1e300}), pointsOf({2}, {1e10, 1})));  // 1e310 overflows
  EXPECT_TRUE(boundOf(pointsOf({1, 2}, {1e300, -1e300}), pointsOf({2}, {1, 1})));
}

}  // namespace
