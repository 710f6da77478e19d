// The two oracles for the file format (docs/semantics.md §3.2): the texts literal_reader reads, its
// agreement with the C library and GMP on values where readers go wrong, and file_round_trip's
// comparison, which must see a value, a sign of zero or an attribute that changed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "properties/oracles/file_round_trip.h"
#include "properties/oracles/literal_reader.h"

namespace tc {
namespace {

bool contains(const std::vector<std::string>& texts, const std::string& text) {
  return std::find(texts.begin(), texts.end(), text) != texts.end();
}

TEST(LiteralReader, ReadsTheExactDecimalTheMidpointAndJustAboveIt) {
  std::vector<std::string> texts = props::detail::ieeeTexts(0.1);
  EXPECT_TRUE(contains(texts, "0.1")) << "the writer's shortest decimal";
  EXPECT_TRUE(contains(texts, "0x1.999999999999ap-4"));
  EXPECT_TRUE(contains(texts, "0.10000000000000000555111512312578270211815834045410156250"));
  EXPECT_TRUE(contains(texts, "1.0000000000000000555111512312578270211815834045410156250e-1"));
  EXPECT_TRUE(contains(texts, "0.100000000000000012490009027033011079765856266021728515625"));
  EXPECT_TRUE(contains(texts, "0.100000000000000012490009027033011079765856266021728515625000001"));
  // The smallest subnormal: its ulp is itself, so the midpoint is 1.5 times it.
  std::vector<std::string> tiny = props::detail::ieeeTexts(std::numeric_limits<double>::denorm_min());
  EXPECT_TRUE(std::any_of(tiny.begin(), tiny.end(), [](const std::string& t) { return t.starts_with("7.4109846876186981626"); }));
  EXPECT_EQ(props::detail::ieeeTexts(-0.0f), (std::vector<std::string>{"-0", "-0", "-0x0p+0", "-0"}));
  EXPECT_EQ(props::detail::ieeeTexts(std::nan("")), std::vector<std::string>{"nan"});
}

TEST(LiteralReader, AgreesWithTheCLibraryWhereReadersGoWrong) {
  const double inf = std::numeric_limits<double>::infinity();
  for (double x : {0.1, -0.0, 1.0, 5e-324, 2.2250738585072009e-308, 2.2250738585072014e-308,
                   1.7976931348623157e308, -1.7976931348623157e308, 9007199254740993.0, 123456789.125, inf, -inf})
    EXPECT_EQ(props::detail::ieeeDisagreement(x), "") << x;
  for (float x : {0.1f, 1e-45f, 1.17549435e-38f, 3.40282347e38f, 16777217.0f, -2.5f})
    EXPECT_EQ(props::detail::ieeeDisagreement(x), "") << x;
}

TEST(LiteralReader, ReadsFractionsAndDecimalsAsGmpDoes) {
  using Texts = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(props::detail::rationalTexts(Rational(-1, 80)),
            (Texts{{"-1/80", "-1/80"}, {"-3/240", "-3/240"}, {"-0.0125", "-0.0125"}, {"-1.25e-2", "-0.0125"}}));
  EXPECT_EQ(props::detail::rationalTexts(Rational(1, 3)).size(), 2u) << "1/3 has no decimal";
  EXPECT_EQ(props::detail::gmpReading("0.75"), Rational(3, 4)) << "a leading zero is not octal";
  for (Rational x : {Rational(0), Rational(12), Rational(-7, 2), Rational(1, 3), Rational(3, 1024)})
    EXPECT_EQ(props::detail::rationalDisagreement(x), "") << x;
}

TEST(LiteralReader, WritesOnlyTheDecimalFormsTheFormatAllows) {
  const Rational twoTo33300(Integer(1) << 33300), twoToMinus20001(Integer(1), Integer(1) << 20001);
  const Rational tenTo10000(boost::multiprecision::pow(Integer(10), 10000));
  for (const Rational& x : {twoTo33300, twoToMinus20001, tenTo10000}) {
    EXPECT_EQ(props::detail::rationalDisagreement(x), "");
    for (const auto& [text, plain] : props::detail::rationalTexts(x))
      EXPECT_TRUE(parseValue<Rational>(text).has_value()) << text.substr(0, 40) << "… (" << text.size() << " chars)";
  }
  // 10^10000 keeps both forms (10,001 digits; exponent 10000); 2^33300 only its plain one (1.99…e10024);
  // 2^-20001 only its scientific one (20,002 digits plain).
  EXPECT_EQ(props::detail::rationalTexts(tenTo10000).size(), 4u);
  EXPECT_EQ(props::detail::rationalTexts(twoTo33300).size(), 3u);
  EXPECT_EQ(props::detail::rationalTexts(twoToMinus20001).size(), 3u);
}

TEST(LiteralReader, ReadsEachDistinctValueOnceAtItsFirstPosition) {
  auto c = parseCase<double>(R"({"tapecheck": 1, "inputs": [{"shape": [6]}, {"shape": [2]}],
      "nodes": [{"op": "scale", "args": [1], "attrs": {"c": "0.5"}}],
      "values": [["2", "-0", "2", "0", "nan", "-0"], ["0.5", "nan"]]})");
  ASSERT_TRUE(c.has_value()) << c.error().message;
  std::vector<std::pair<std::string, std::optional<std::size_t>>> read;
  for (const auto& [x, position] : props::distinctValuesOf(*c)) read.push_back({Carrier<double>::format(*x), position});
  const std::vector<std::pair<std::string, std::optional<std::size_t>>> expected{
      {"2", 0}, {"-0", 0}, {"0", 0}, {"nan", 0}, {"0.5", 1}, {"1", 2}};
  EXPECT_EQ(read, expected) << "the output's seed, 1, follows the inputs; scale's c, 0.5, was met at position 1";
}

Case<double> readmeLike(const std::string& values) {
  auto c = parseCase<double>(R"({"tapecheck": 1, "inputs": [{"shape": [4]}],
      "nodes": [{"op": "scale", "args": [0], "attrs": {"c": "-0"}}, {"op": "clamp", "args": [1], "attrs": {"lo": "-inf", "hi": "2"}}],
      "values": [)" + values + "]}");
  EXPECT_TRUE(c.has_value()) << c.error().message;
  return *c;
}

TEST(FileRoundTrip, HoldsOnSpecialsAndSeesEveryChange) {
  Case<double> c = readmeLike(R"(["-0", "nan", "-inf", "1e-320"])");
  EXPECT_TRUE(props::file_round_trip(c).holds) << props::file_round_trip(c).why;
  Case<double> other = c;
  (*other.inputs)[0][0] = 0.0;
  props::Mismatch m = props::detail::caseChange(c, other);
  EXPECT_EQ(m.text, "input values at position 0: element 0: wrote -0, read 0");
  EXPECT_EQ(m.positions, std::set<std::size_t>{0});
  other = c;
  other.graph.nodes[0].attrs.c = 0.0;
  EXPECT_EQ(props::detail::caseChange(c, other).text, "node 1 (scale): attribute c: element 0: wrote -0, read 0");
  other = c;
  other.graph.nodes[1].attrs.lo.reset();
  EXPECT_EQ(props::detail::caseChange(c, other).text, "node 2 (clamp): attribute lo: present on one side only");
  other = c;
  other.seeds[2][3] = 1.0 / 3;
  EXPECT_EQ(props::detail::caseChange(c, other).positions, std::set<std::size_t>{2});
}

}  // namespace
}  // namespace tc
