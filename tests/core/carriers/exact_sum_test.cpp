// The long accumulator of products of doubles: its sums equal the exact rational sums over the
// whole range of doubles (subnormals, the largest values, cancellation to 0), and the interval
// carrier encloses them with one rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/carriers/carrier.h"
#include "core/carriers/exact_sum.h"

namespace tc {
namespace {

Rational exactly(double d) { return Rational(d); }

Rational powerOfTwo(long e) {
  Rational p(1);
  const Rational step = e >= 0 ? Rational(2) : Rational(1) / Rational(2);
  for (long i = 0; i < std::labs(e); ++i) p *= step;
  return p;
}

Rational valueOf(const ExactProductSum::Value& v) {
  Rational total(0);
  for (std::size_t i = v.digits.size(); i-- > 0;)
    total = total * powerOfTwo(64) + Rational(Integer(v.digits[i]));
  total *= powerOfTwo(v.exponent);
  return v.negative ? -total : total;
}

const std::vector<double> kWideRange = {0.0,
                                        -0.0,
                                        1.0,
                                        -3.0,
                                        0.1,
                                        -2.718281828459045,
                                        1e-310,
                                        -std::numeric_limits<double>::denorm_min(),
                                        std::numeric_limits<double>::min(),
                                        std::numeric_limits<double>::max(),
                                        -std::numeric_limits<double>::max(),
                                        std::ldexp(1.0, 53) - 1,
                                        1e10,
                                        -1e-30,
                                        0x1p-149};

TEST(ExactProductSum, EqualsTheRationalSumAcrossTheWholeRangeOfDoubles) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::size_t> pick(0, kWideRange.size() - 1), length(0, 40);
  ExactProductSum sum;
  ExactProductSum::Value value;
  for (int trial = 0; trial < 300; ++trial) {
    Rational expected(0);
    const std::size_t n = length(rng);
    for (std::size_t p = 0; p < n; ++p) {
      const double x = kWideRange[pick(rng)], y = kWideRange[pick(rng)];
      sum.add(DecodedDouble::of(x), DecodedDouble::of(y));
      expected += exactly(x) * exactly(y);
    }
    sum.takeValue(value);
    ASSERT_EQ(valueOf(value), expected) << "trial " << trial;
    if (expected != 0) {
      EXPECT_NE(value.digits.front(), 0u);
      EXPECT_NE(value.digits.back(), 0u);
    } else {
      EXPECT_TRUE(value.digits.empty());
    }
  }
}

TEST(ExactProductSum, CancelsExactlyAndCarriesAcrossWords) {
  ExactProductSum sum;
  ExactProductSum::Value value;
  const double big = std::numeric_limits<double>::max(), tiny = std::numeric_limits<double>::denorm_min();
  // max² − max² + tiny²: the result is the last bit alone, 2^-2148.
  sum.add(DecodedDouble::of(big), DecodedDouble::of(big));
  sum.add(DecodedDouble::of(tiny), DecodedDouble::of(tiny));
  sum.add(DecodedDouble::of(-big), DecodedDouble::of(big));
  sum.takeValue(value);
  EXPECT_EQ(valueOf(value), exactly(tiny) * exactly(tiny));
  EXPECT_EQ(value.exponent, ExactProductSum::kLowestExponent);
  // Many products whose words overflow into the next ones.
  const double justBelow = std::ldexp(1.0, 53) - 1;
  Rational expected(0);
  for (int i = 0; i < 5000; ++i) {
    sum.add(DecodedDouble::of(justBelow), DecodedDouble::of(justBelow));
    expected += exactly(justBelow) * exactly(justBelow);
  }
  sum.takeValue(value);
  EXPECT_EQ(valueOf(value), expected);
  // Products at a word's last bit (2^2175 above the last bit: 63 into word 33) put 2^41 into the
  // third word each: 2^24 of them carry out of it.
  const double x = std::ldexp(justBelow, 13), y = std::ldexp(justBelow, 14);
  const long count = 1L << 24;
  for (long i = 0; i < count; ++i) sum.add(DecodedDouble::of(x), DecodedDouble::of(y));
  sum.takeValue(value);
  EXPECT_EQ(valueOf(value), exactly(x) * exactly(y) * Rational(count));
  sum.takeValue(value);  // taking the value resets the sum
  EXPECT_TRUE(value.digits.empty());
}

TEST(ExactProductSum, TheIntervalCarrierEnclosesASumWithOneRounding) {
  ExactProductSum sum;
  ExactProductSum::Value value;
  sum.add(DecodedDouble::of(3), DecodedDouble::of(-0.5));
  sum.takeValue(value);
  EXPECT_EQ(Carrier<Interval>::format(Carrier<Interval>::fromExactSum(value)), "[-3/2, -3/2]");
  // 1 + 2^-1074·2^-1074 needs 2149 bits: the narrowest 257-bit interval around it.
  sum.add(DecodedDouble::of(1), DecodedDouble::of(1));
  const double tiny = std::numeric_limits<double>::denorm_min();
  sum.add(DecodedDouble::of(tiny), DecodedDouble::of(tiny));
  sum.takeValue(value);
  const Rational exact = Rational(1) + exactly(tiny) * exactly(tiny);
  const Interval enclosed = Carrier<Interval>::fromExactSum(value);
  EXPECT_TRUE(contains(enclosed, exact));
  EXPECT_FALSE(exactDouble(enclosed));
  EXPECT_TRUE(enclosed == enclose(exact, exact));
  sum.takeValue(value);
  EXPECT_TRUE(Carrier<Interval>::fromExactSum(value) == Carrier<Interval>::fromInt(0));
}

}  // namespace
}  // namespace tc
