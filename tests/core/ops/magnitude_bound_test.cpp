// The magnitudes the accuracy budgets of sums of products scale with (core/ops/accuracy.h): where
// every value is a double, magnitudeBoundFromDoubles bounds |a|·|b| from its IEEE evaluation, and
// termsOnAbsoluteFromDoubles the terms on absolute values (|ct|·|b|ᵀ, |a|ᵀ·|ct|) from theirs.
// The bound must hold the exact magnitude at every element (round to nearest errs both ways, and
// products below 2^-1022 err absolutely) and stay within about (1 + 2γ_k)·M + 2k·η of it.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/carriers/interval.h"
#include "core/graph/builder.h"
#include "core/ops/library.hpp"
#include "properties/accuracy.h"

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
