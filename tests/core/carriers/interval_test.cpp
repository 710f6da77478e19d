// The interval carrier: enclosures read and written exactly, its order, its domains, and exact
// values staying inside narrow enclosures through whole generated graphs.
#include <gtest/gtest.h>

#include <cmath>

#include "core/carriers/carrier.h"
#include "core/carriers/dual.h"
#include "core/io/case_file.h"
#include "core/ops/library.hpp"
#include "core/spec/reference.h"
#include "generators/generate.h"

namespace tc {
namespace {

Interval read(std::string_view text) {
  auto value = parseValue<Interval>(text);
  EXPECT_TRUE(value) << text << ": " << (value ? "" : value.error().message);
  return value ? *value : Interval();
}

Rational q(std::string_view text) { return parseLiteral(text).value().value; }

TEST(IntervalCarrier, IsAnExactOrderedTranscendentalEnclosureCarrierWithStorageEquality) {
  constexpr Capabilities caps = Carrier<Interval>::caps;
  EXPECT_TRUE(caps.field && caps.ordered && caps.transcendental && caps.storageEquality && caps.exact && caps.enclosure);
  EXPECT_FALSE(Carrier<Rational>::caps.enclosure || Carrier<double>::caps.enclosure);
  EXPECT_TRUE(Carrier<Dual<Interval>>::caps.transcendental && Carrier<Dual<Interval>>::caps.enclosure);
}

TEST(IntervalCarrier, ReadsPointsExactlyAndEnclosesWhatEndpointsCannotHold) {
  EXPECT_EQ(Carrier<Interval>::format(read("0.5")), "[1/2, 1/2]");
  EXPECT_EQ(Carrier<Interval>::format(read("-3")), "[-3, -3]");
  EXPECT_EQ(Carrier<Interval>::format(read("-0")), "[0, 0]");
  const Interval third = read("1/3");
  EXPECT_TRUE(contains(third, q("1/3")));
  EXPECT_TRUE(third == read("[1/3, 1/3]"));
  EXPECT_GT(relativeWidth(third), 0);
  EXPECT_LT(relativeWidth(third), std::ldexp(1.0, -250));
  EXPECT_TRUE(contains(read("[1, 2]"), q("3/2")));
  EXPECT_FALSE(contains(read("[1, 2]"), q("5/2")));
}

TEST(IntervalCarrier, RefusesSpecialsReversedAndMalformedIntervals) {
  for (std::string_view text : {"nan", "inf", "-inf", "[2, 1]", "[0, inf]", "[1 2]", "[1, 2", "[, 1]", "[1, 2]x"})
    EXPECT_FALSE(parseValue<Interval>(text)) << text;
}

TEST(IntervalCarrier, WritesExactEndpointsThatReadBackToTheSameInterval) {
  const Interval third = read("1/3");
  std::vector<Interval> values{read("0"), read("-7/8"), read("[1, 2]"), third, -third,
                               Carrier<Interval>::exp(third), Carrier<Interval>::tanh(read("1e-30")),
                               Carrier<Interval>::sin(read("1e6"))};
  for (const Interval& x : values) {
    const std::string text = Carrier<Interval>::format(x);
    EXPECT_TRUE(Carrier<Interval>::same(read(text), x)) << text;
  }
  EXPECT_TRUE(Carrier<Interval>::format(third).starts_with("[0x5.5555")) << Carrier<Interval>::format(third);
}

TEST(IntervalCarrier, DisplaysPointsExactlyAndOtherIntervalsRoundedOutward) {
  EXPECT_EQ(displayValue(read("5/4")), "5/4");
  EXPECT_EQ(displayValue(read("1/3")), "[0.33333333333333333, 0.33333333333333334]");
  EXPECT_EQ(displayValue(-read("1/3")), "[-0.33333333333333334, -0.33333333333333333]");
}

TEST(IntervalCarrier, OrdersByLowerThenUpperEndpointWhichIsTheRealOrderForDisjointIntervals) {
  EXPECT_LT(read("[1, 2]"), read("[3, 4]"));
  EXPECT_GT(read("[-1, 0]"), read("[-3, -2]"));
  // Overlapping: a fixed total order, the same for every layer.
  EXPECT_LT(read("[0, 2]"), read("[1, 3]"));
  EXPECT_LT(read("[0, 1]"), read("[0, 2]"));
  EXPECT_LT(read("[-1, 1]"), zero<Interval>());
  EXPECT_FALSE(read("[0, 1]") == read("[0, 2]"));
  EXPECT_TRUE(read("1/3") == read("1/3"));
  EXPECT_TRUE(overlap(read("[0, 2]"), read("[2, 3]")));
  EXPECT_FALSE(overlap(read("[0, 2]"), read("[5/2, 3]")));
}

TEST(IntervalCarrier, StorageEqualityHoldsForTheIdentitiesThePassesSkip) {
  const Interval x = Carrier<Interval>::exp(read("1/3"));
  EXPECT_TRUE(x + zero<Interval>() == x);
  EXPECT_TRUE(zero<Interval>() * x == zero<Interval>());
  EXPECT_TRUE((x + x) + x == (x + x) + x);
}

TEST(IntervalCarrier, TranscendentalFunctionsEncloseTheirExactValues) {
  const Interval third = read("1/3");
  EXPECT_TRUE(contains(Carrier<Interval>::log(Carrier<Interval>::exp(third)), q("1/3")));
  EXPECT_TRUE(contains(Carrier<Interval>::sqrt(read("9/4")), q("3/2")));
  EXPECT_TRUE(contains(Carrier<Interval>::exp(zero<Interval>()), q("1")));
  const Interval s = Carrier<Interval>::sin(third), c = Carrier<Interval>::cos(third);
  EXPECT_TRUE(contains(s * s + c * c, q("1")));
  const Interval t = Carrier<Interval>::tanh(third);
  const Interval e2 = Carrier<Interval>::exp(third + third);
  EXPECT_TRUE(overlap(t, (e2 - one<Interval>()) / (e2 + one<Interval>())));
  EXPECT_TRUE(contains(Carrier<Interval>::log1p(read("0")), q("0")));
  EXPECT_LT(relativeWidth(t), std::ldexp(1.0, -250));
}

// parseInterval keeps what it read lately (the shrinker reads the same values again and again): a
// text read again, among tens of thousands of others and past the point where the memory starts
// over, is the same interval or the same refusal as a text never read before.
TEST(IntervalCarrier, ATextReadAgainGivesWhatItGaveTheFirstTime) {
  auto text = [](int i) { return i % 3 == 0 ? fmt::format("[{}/7, {}]", i, i) : fmt::format("{}/{}", i, i % 11 + 1); };
  auto expected = [](int i) {
    return i % 3 == 0 ? enclose(Rational(i) / 7, Rational(i)) : enclose(Rational(i) / (i % 11 + 1), Rational(i) / (i % 11 + 1));
  };
  for (int round = 0; round < 2; ++round)
    for (int i = 1; i <= 40'000; i += (round == 0 ? 1 : 7)) {
      const Result<Interval> value = parseInterval(text(i));
      ASSERT_TRUE(value) << text(i);
      ASSERT_TRUE(*value == expected(i)) << text(i) << " read as " << formatInterval(*value) << " in round " << round;
    }
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(parseInterval("[2, 1]").error().message, "'[2, 1]': the lower endpoint exceeds the upper one");
    EXPECT_TRUE(parseInterval("[1, 2]").value() == enclose(Rational(1), Rational(2)));
  }
}

// formatInterval keeps the endpoints it wrote lately (the shrinker writes a case again for every
// candidate): an endpoint written again, past the point where the memory starts over, is the text it
// had the first time; endpoints that differ only in sign, exponent or the last bit are written apart.
TEST(IntervalCarrier, AnEndpointWrittenAgainIsTheTextWrittenTheFirstTime) {
  const Rational lastBit = q("0x1p-256");  // endpoints of 257 bits
  auto point = [](const Rational& v) { return formatInterval(enclose(v, v)); };
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(point(Rational(1, 2)), "[1/2, 1/2]") << "round " << round;
    EXPECT_EQ(point(Rational(-1, 2)), "[-1/2, -1/2]") << "round " << round;
    EXPECT_EQ(point(Rational(1)), "[1, 1]") << "round " << round;
    const std::string nextToOne = point(1 + lastBit);
    EXPECT_NE(nextToOne, "[1, 1]") << "round " << round;
    EXPECT_TRUE(parseInterval(nextToOne).value() == enclose(1 + lastBit, 1 + lastBit)) << nextToOne;
  }
  std::vector<std::string> first;
  for (int round = 0; round < 2; ++round)
    for (int i = 1; i <= 40'000; ++i) {
      const Interval x = enclose(Rational(i) / 7, Rational(i));
      const std::string text = formatInterval(x);
      if (round == 0) {
        ASSERT_TRUE(parseInterval(text).value() == x) << text << " does not read back";
        first.push_back(text);
      } else {
        ASSERT_EQ(text, first[i - 1]) << "written again in round " << round;
      }
    }
}

TEST(IntervalCarrier, ZeroAndPositivityAreJudgedOnEveryPoint) {
  EXPECT_FALSE(certainlyNonzero(read("[-1, 1]")));
  EXPECT_FALSE(certainlyNonzero(read("[0, 1]")));
  EXPECT_TRUE(certainlyNonzero(read("[1/2, 1]")));
  EXPECT_FALSE(certainlyPositive(read("[0, 1]")));
  EXPECT_TRUE(certainlyPositive(read("1e-300")));
  EXPECT_TRUE(certainlyNonzero(1.0) && !certainlyNonzero(-0.0) && certainlyPositive(Rational(1)));
}

TEST(IntervalCarrier, EndpointsOutsideTheExponentRangeAreRefused) {
  EXPECT_TRUE(Carrier<Interval>::withinRange(read("0x1p+29999")));
  auto tooLarge = parseValue<Interval>("[1, 0x1p+30001]");
  ASSERT_FALSE(tooLarge);
  EXPECT_NE(tooLarge.error().message.find("beyond 2^±30000, the interval carrier's range"), std::string::npos)
      << tooLarge.error().message;
  EXPECT_FALSE(parseValue<Interval>("-1e-9100"));
  const Interval large = read("0x1p+20000");
  EXPECT_FALSE(Carrier<Interval>::withinRange(large * large));
  EXPECT_FALSE(Carrier<Interval>::withinRange(Carrier<Interval>::exp(read("0x1p+40"))));
  EXPECT_EQ(Carrier<Interval>::exponentMagnitude(read("[-0x1p+100, 1]")), 101);
}

TEST(IntervalCarrier, DualNumbersCarryTheDerivativesOfCalculus) {
  using D = Dual<Interval>;
  const D x{read("1/3"), one<Interval>()};
  const D e = Carrier<D>::exp(x);
  EXPECT_TRUE(e.tangent == e.value);
  EXPECT_TRUE(overlap(Carrier<D>::log(x).tangent, read("3")));
  EXPECT_TRUE(overlap(Carrier<D>::sqrt(D{read("9/4"), one<Interval>()}).tangent, read("1/3")));
  EXPECT_TRUE(overlap(Carrier<D>::sin(x).tangent, Carrier<Interval>::cos(x.value)));
  EXPECT_TRUE(overlap(Carrier<D>::cos(x).tangent, -Carrier<Interval>::sin(x.value)));
  EXPECT_TRUE(overlap(Carrier<D>::log1p(x).tangent, read("3/4")));
  EXPECT_TRUE(Carrier<D>::abs(-x).tangent == one<Interval>());
}

// Exact values stay exact inside the intervals. Generated cases of the rational carrier (its ring
// and field ops without kinks, opaque programs) read on both carriers: every value of the reference's context and of
// its dense gradients lies inside its interval, which is narrower than 2^-200 relative to the
// value — or to 1, the scale of the generated values, where the value is 0 or smaller (a − a of an
// enclosure of 1/3 is a narrow interval around 0, of relative width 2). Ops with kinks are left
// out: at a tie reached through rounded values (max(x/x, 1)) the interval carrier takes one side's
// derivative where the rational one applies the kink convention (docs/semantics.md §1.13).
TEST(IntervalCarrier, EnclosesTheRationalResultsOfGeneratedGraphsNarrowly) {
  const double narrow = std::ldexp(1.0, -200);
  gen::CaseOptions withoutKinks{std::vector<OpKind>{}};
  for (OpKind kind : ops::opsSupportedBy<Rational>())
    if (!ops::hasKinks(kind)) withoutKinks.ops->push_back(kind);
  std::size_t compared = 0, values = 0;
  double widest = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const std::string text = gen::randomCase<Rational>(seed, 60, withoutKinks).dump();
    auto exact = parseCase<Rational>(text);
    auto enclosed = parseCase<Interval>(text);
    ASSERT_TRUE(exact && enclosed) << text;
    auto exactContext = spec::eval(exact->graph, *exact->inputs, exact->data);
    auto enclosedContext = spec::eval(enclosed->graph, *enclosed->inputs, enclosed->data);
    if (!exactContext) continue;
    ASSERT_TRUE(enclosedContext) << text << "\n" << enclosedContext.error().message;
    const Pack<Rational> exactGradients = spec::backpropAllCtx(exact->graph, *exactContext, exact->data, exact->seeds);
    const Pack<Interval> enclosedGradients =
        spec::backpropAllCtx(enclosed->graph, *enclosedContext, enclosed->data, enclosed->seeds);
    auto check = [&](const Pack<Rational>& a, const Pack<Interval>& b, std::string_view what) {
      for (std::size_t p = 0; p < a.size(); ++p)
        for (std::size_t i = 0; i < a[p].size(); ++i) {
          ++values;
          const double width = boost::multiprecision::width(b[p][i].v).convert_to<double>();
          const double scale = std::max(1.0, std::fabs(a[p][i].convert_to<double>()));
          widest = std::max(widest, width / scale);
          ASSERT_TRUE(contains(b[p][i], a[p][i]))
              << what << " at position " << p << " value " << i << ": " << formatRational(a[p][i]) << " outside "
              << displayValue(b[p][i]) << "\n" << text;
          ASSERT_LE(width / scale, narrow) << what << " at position " << p << " value " << i << "\n" << text;
        }
    };
    check(*exactContext, *enclosedContext, "value");
    check(exactGradients, enclosedGradients, "gradient");
    ++compared;
  }
  EXPECT_GT(compared, 250u);
  EXPECT_GT(values, 10000u);
  RecordProperty("widest_relative_width", fmt::format("{:.3g}", widest));
}

}  // namespace
}  // namespace tc
