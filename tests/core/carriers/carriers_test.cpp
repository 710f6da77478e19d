// Carriers: capabilities, exact arithmetic, safe construction, and value text in and out.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <bit>

#include "core/carriers/carrier.h"

namespace tc {
namespace {

TEST(Carriers, CapabilitiesMatchTheDesignTable) {
  EXPECT_TRUE(Carrier<Rational>::caps.field && Carrier<Rational>::caps.ordered && Carrier<Rational>::caps.storageEquality);
  EXPECT_FALSE(Carrier<Rational>::caps.transcendental);
  EXPECT_TRUE(Carrier<ModP>::caps.field && Carrier<ModP>::caps.storageEquality);
  EXPECT_FALSE(Carrier<ModP>::caps.ordered || Carrier<ModP>::caps.transcendental);
  EXPECT_TRUE(Carrier<double>::caps.ordered && Carrier<double>::caps.transcendental);
  EXPECT_FALSE(Carrier<double>::caps.storageEquality || Carrier<float>::caps.storageEquality);
  EXPECT_TRUE(Carrier<RationalNoEq>::caps.exact && Carrier<RationalNoEq>::caps.ordered);
  EXPECT_FALSE(Carrier<RationalNoEq>::caps.storageEquality);
}

TEST(Carriers, RequirementsFollowCapabilities) {
  EXPECT_TRUE(satisfies(Carrier<ModP>::caps, Requirement::field));
  EXPECT_FALSE(satisfies(Carrier<ModP>::caps, Requirement::ordered));
  EXPECT_FALSE(satisfies(Carrier<Rational>::caps, Requirement::transcendental));
  EXPECT_TRUE(satisfies(Carrier<float>::caps, Requirement::orderedField));
}

TEST(Carriers, MakeRationalHandlesNegativeDenominators) {
  // Boost 1.74 builds Rational(1, -1) wrongly; makeRational divides two rationals instead.
  EXPECT_EQ(makeRational(Integer(1), Integer(-1)), Rational(-1));
  EXPECT_EQ(formatRational(makeRational(Integer(6), Integer(-4))), "-3/2");
}

TEST(Carriers, ModPArithmeticIsExactModuloTheMersennePrime) {
  const ModP minusOne = ModP::fromInt(-1);
  EXPECT_EQ(minusOne.residue(), ModP::kPrime - 1);
  EXPECT_EQ(minusOne * minusOne, ModP::fromInt(1));
  EXPECT_EQ(ModP::fromInt(3) / ModP::fromInt(3), ModP::fromInt(1));
  EXPECT_EQ(ModP::fromInt(2).inverse() * ModP::fromInt(2), ModP::fromInt(1));
  EXPECT_EQ((ModP::fromInt(1) / ModP::fromInt(2)).residue(), (ModP::kPrime + 1) / 2);
  EXPECT_EQ(ModP::fromInt(5) - ModP::fromInt(7), ModP::fromInt(-2));
  EXPECT_EQ(-ModP::fromInt(0), ModP::fromInt(0));
  const ModP big = ModP::fromResidue(ModP::kPrime - 2);
  EXPECT_EQ((big * big).residue(), 4u);  // (-2)^2
}

TEST(Carriers, ModPReadsFractionsAndRejectsDenominatorsDivisibleByP) {
  EXPECT_EQ(*parseValue<ModP>("-1/2"), -(ModP::fromInt(1) / ModP::fromInt(2)));
  EXPECT_EQ(*parseValue<ModP>("2305843009213693951"), ModP::fromInt(0));
  auto bad = parseValue<ModP>("1/2305843009213693951");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "'1/2305843009213693951': denominator is divisible by 2^61-1");
}

TEST(Carriers, AValueReadAgainIsTheValueReadFirstAndAMistakeStaysOne) {
  // Twice each: the second read may be the remembered one, and must be what the text says.
  for (int pass = 0; pass < 2; ++pass) {
    EXPECT_EQ(Carrier<Rational>::format(*parseValue<Rational>("-6/8")), "-3/4") << "pass " << pass;
    EXPECT_EQ(*parseValue<ModP>("-1/2"), -(ModP::fromInt(1) / ModP::fromInt(2))) << "pass " << pass;
    EXPECT_EQ(Carrier<Interval>::format(*parseValue<Interval>("1/3")), Carrier<Interval>::format(*detail::readValue<Interval>("1/3")))
        << "pass " << pass;
    auto bad = parseValue<ModP>("1/2305843009213693951");
    ASSERT_FALSE(bad) << "pass " << pass;
    EXPECT_NE(bad.error().message.find("divisible"), std::string::npos) << bad.error().message;
  }
}

TEST(Carriers, ExactValuesPrintCanonically) {
  EXPECT_EQ(Carrier<Rational>::format(*parseValue<Rational>("-6/8")), "-3/4");
  EXPECT_EQ(Carrier<Rational>::format(*parseValue<Rational>("2.50")), "5/2");
  EXPECT_EQ(Carrier<Rational>::format(*parseValue<Rational>("-0")), "0");
  EXPECT_EQ(Carrier<Rational>::format(*parseValue<Rational>("2.5e-3")), "1/400");
  EXPECT_EQ(Carrier<Rational>::format(*parseValue<Rational>("0x1.8p1")), "3");
  EXPECT_EQ(Carrier<ModP>::format(ModP::fromInt(-1)), "2305843009213693950");
}


// Files keep the residue in [0, p); people see it in the symmetric range, or as a small fraction
// marked as a residue, so that 1/3 mod p is not mistaken for the exact rational 1/3.
TEST(Carriers, ModPDisplaysSymmetricResiduesAndSmallFractionsMarkedModP) {
  const ModP three = ModP::fromInt(3);
  EXPECT_EQ(displayValue(ModP::fromInt(-1)), "-1");
  EXPECT_EQ(displayValue(ModP::fromInt(0)), "0");
  EXPECT_EQ(displayValue(ModP::fromInt(7)), "7");
  EXPECT_EQ(displayValue(ModP::fromInt(1) / three), "≡1/3 (mod p)");
  EXPECT_EQ(displayValue(ModP::fromInt(-5) / ModP::fromInt(12)), "≡-5/12 (mod p)");
  EXPECT_EQ(displayValue(ModP::fromResidue((ModP::kPrime + 1) / 2)), "≡1/2 (mod p)");
  EXPECT_EQ(displayValue(ModP::fromResidue((ModP::kPrime - 1) / 2)), "≡-1/2 (mod p)");
  // Residues without a small fraction: the symmetric range, either side of zero.
  EXPECT_EQ(displayValue(ModP::fromInt(1000000000000)), "1000000000000");
  EXPECT_EQ(displayValue(ModP::fromInt(-1000000000000)), "-1000000000000");
  EXPECT_EQ(displayValue(ModP::fromInt(1 << 21) / three), "768614336405263701");  // 2^21/3: too large a fraction
  // Every displayed fraction is the residue it stands for.
  for (std::int64_t n : {-7, 1, 22, 1000003})
    for (std::int64_t d : {2, 9, 1048576}) {
      std::string shown = displayValue(ModP::fromInt(n) / ModP::fromInt(d));
      if (shown.starts_with("≡")) {
        std::string fraction = shown.substr(std::string("≡").size(), shown.find(' ') - std::string("≡").size());
        EXPECT_EQ(*parseValue<ModP>(fraction), ModP::fromInt(n) / ModP::fromInt(d)) << shown;
      }
    }
  EXPECT_EQ(displayValue(Rational(1) / 3), "1/3");
  EXPECT_EQ(displayValue(-0.5), "-0.5");
}
TEST(Carriers, IeeeValuesPrintShortestRoundTrip) {
  EXPECT_EQ(Carrier<double>::format(0.1), "0.1");
  EXPECT_EQ(Carrier<float>::format(0.1f), "0.1");
  EXPECT_EQ(Carrier<double>::format(-0.0), "-0");
  EXPECT_EQ(Carrier<double>::format(-std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(Carrier<double>::format(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(Carrier<float>::format(16777216.0f), "16777216");
  for (double x : {1e16, 5e-324, 1.7976931348623157e308, -2.5e-3}) {
    auto back = parseValue<double>(Carrier<double>::format(x));
    ASSERT_TRUE(back) << x;
    EXPECT_TRUE(Carrier<double>::same(*back, x)) << x;
  }
}

TEST(Carriers, IeeeComparisonIsByBitPatternWithAllNansEqual) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(Carrier<double>::same(nan, -nan));
  EXPECT_FALSE(Carrier<double>::same(0.0, -0.0));
  EXPECT_TRUE(Carrier<float>::same(1.5f, 1.5f));
  EXPECT_FALSE(Carrier<float>::same(1.0f, std::nextafter(1.0f, 2.0f)));
}

TEST(Carriers, SpecialsReadOnIeeeAndFailOnExactCarriers) {
  EXPECT_TRUE(std::signbit(*parseValue<double>("-0")));
  EXPECT_TRUE(std::isnan(*parseValue<float>("nan")));
  EXPECT_EQ(*parseValue<double>("-inf"), -std::numeric_limits<double>::infinity());
  auto nan = parseValue<Rational>("nan");
  ASSERT_FALSE(nan);
  EXPECT_EQ(nan.error().message, "'nan': has no exact value on the rational carrier");
  EXPECT_FALSE(parseValue<ModP>("inf"));
}

TEST(Carriers, MalformedValuesAreErrors) {
  EXPECT_EQ(parseValue<Rational>("1/0").error().message, "'1/0' is not a number: zero denominator");
  EXPECT_EQ(parseValue<Rational>("1/-2").error().message,
            "'1/-2' is not a number: denominator has no digits (its sign belongs on the numerator)");
  EXPECT_EQ(parseValue<Rational>("").error().message, "'' is not a number: empty");
  EXPECT_EQ(parseValue<Rational>("1e999999").error().message, "'1e999999' is not a number: exponent exceeds 10000");
  EXPECT_FALSE(parseValue<double>("--1"));
  EXPECT_FALSE(parseValue<double>("1.5x"));
  EXPECT_FALSE(parseValue<double>("0x1.8"));
}

TEST(Carriers, RoundingIsToNearestEven) {
  EXPECT_EQ(roundToFloat(Rational(16777217)), 16777216.0f);
  EXPECT_EQ(roundToFloat(Rational(16777219)), 16777220.0f);
  EXPECT_EQ(roundToDouble(*parseValue<Rational>("1/3")), 1.0 / 3.0);
  EXPECT_EQ(roundToDouble(*parseValue<Rational>("-1/3")), -1.0 / 3.0);
  EXPECT_EQ(roundToFloat(*parseValue<Rational>("1e39")), std::numeric_limits<float>::infinity());
  EXPECT_EQ(roundToDouble(*parseValue<Rational>("2.4703282292062328e-324")), 5e-324);  // just above half
  EXPECT_EQ(roundToDouble(*parseValue<Rational>("2.4703282292062327e-324")), 0.0);     // below half
}

// The fast path of parseValue on IEEE carriers (std::from_chars) must give exactly what the exact
// path gives (parseLiteral, then correct rounding), and leave to it whatever it does not read.
template <class F>
void expectFastPathAgrees(const std::string& text) {
  auto literal = parseLiteral(text);
  auto exact = literal ? Carrier<F>::fromLiteral(*literal) : Result<F>(fail(literal.error().message));
  auto read = parseValue<F>(text);
  ASSERT_EQ(static_cast<bool>(read), static_cast<bool>(exact)) << text;
  if (read) {
    EXPECT_TRUE(Carrier<F>::same(*read, *exact)) << text << ": " << *read << " vs " << *exact;
  }
}

TEST(Carriers, FastIeeeReadingAgreesWithTheExactPath) {
  std::vector<std::string> texts{"0", "-0", "-0.0", "0x0p+0", "-0x0.0p+0", "1.", ".5", "-.5", "1e5", "1E+5", "2.5e-3",
                                 "0x1.8p+1", "-0x1.fffffffffffffp+1023", "0x1p-1074", "0x1p-1075", "0x1.8p-1075",
                                 "1e-400", "-1e-400", "1e400", "1e39", "3.4028235677973366e38", "1.4e-45", "7e-46",
                                 "2.4703282292062328e-324", "2.4703282292062327e-324", "16777217", "16777219",
                                 "0.1", "1/3", "nan", "inf", "-inf", "+1", "--1", "1.5x", "0x1.8", "0x.8p1", "1e", "",
                                 std::string(70, '1') + "e-60", "9007199254740993", "0.30000000000000004"};
  std::mt19937_64 random(7);
  for (int i = 0; i < 2000; ++i) {
    double d = std::bit_cast<double>(random());
    if (std::isnan(d)) continue;
    texts.push_back(Carrier<double>::format(d));
    texts.push_back(fmt::format("{:a}", d));
    texts.push_back(fmt::format("{:.17g}", d));
    texts.push_back(fmt::format("{:.9g}", d));
  }
  for (const std::string& text : texts) {
    expectFastPathAgrees<double>(text);
    expectFastPathAgrees<float>(text);
  }
}

}  // namespace
}  // namespace tc
