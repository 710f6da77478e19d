#include "core/carriers/literal.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>

namespace tc {
namespace {

// Exponents beyond these bounds are refused so that a hostile file cannot ask for a
// rational with millions of digits.
constexpr long kMaxDecimalExponent = 10000;
constexpr long kMaxBinaryExponent = 40000;
constexpr std::size_t kMaxDigits = 10000;

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}

int digitValue(char c, int base) {
  int v = -1;
  if (c >= '0' && c <= '9') v = c - '0';
  else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
  else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
  return v < base ? v : -1;
}

//! A cursor over the text being parsed.
struct Scanner {
  std::string_view text;
  std::size_t at = 0;

  bool done() const { return at == text.size(); }
  bool take(char c) {
    if (!done() && text[at] == c) return ++at, true;
    return false;
  }
  bool takeEither(char a, char b) { return take(a) || take(b); }
  // Appends digits of `base` to `value`; returns how many were read.
  std::size_t digits(int base, Integer& value) {
    std::size_t count = 0;
    while (!done() && digitValue(text[at], base) >= 0) {
      value = value * base + digitValue(text[at], base);
      ++at, ++count;
    }
    return count;
  }
};

Result<long> parseExponent(Scanner& s, long limit) {
  bool negative = s.take('-');
  if (!negative) s.take('+');
  long e = 0;
  std::size_t count = 0;
  while (!s.done() && digitValue(s.text[s.at], 10) >= 0) {
    e = e * 10 + digitValue(s.text[s.at], 10);
    if (e > limit) return fail(fmt::format("exponent exceeds {}", limit));
    ++s.at, ++count;
  }
  if (count == 0) return fail("exponent has no digits");
  return negative ? -e : e;
}

Rational scaleByPower(const Integer& mantissa, unsigned base, long exponent) {
  Integer power = boost::multiprecision::pow(Integer(base), static_cast<unsigned>(std::labs(exponent)));
  return exponent >= 0 ? Rational(mantissa * power) : makeRational(mantissa, power);
}

// mantissa = digits[.digits], then an exponent introduced by `marker`, in `base`.
Result<Rational> parsePositional(Scanner& s, int base, char marker, unsigned exponentBase, int bitsPerDigit,
                                 bool exponentRequired) {
  Integer mantissa = 0;
  std::size_t whole = s.digits(base, mantissa);
  std::size_t fraction = 0;
  if (s.take('.')) fraction = s.digits(base, mantissa);
  if (whole + fraction == 0) return fail("no digits");
  if (whole + fraction > kMaxDigits) return fail(fmt::format("more than {} digits", kMaxDigits));
  long exponent = 0;
  if (s.takeEither(marker, static_cast<char>(std::toupper(marker)))) {
    auto e = parseExponent(s, exponentBase == 10 ? kMaxDecimalExponent : kMaxBinaryExponent);
    if (!e) return std::unexpected(e.error());
    exponent = *e;
  } else if (exponentRequired) {
    return fail("hex float needs a 'p' exponent");
  }
  long scaled = exponent - static_cast<long>(fraction) * bitsPerDigit;
  return scaleByPower(mantissa, exponentBase, scaled);
}

Result<Rational> parseMagnitude(Scanner& s) {
  std::string_view rest = s.text.substr(s.at);
  if (rest.starts_with("0x") || rest.starts_with("0X")) {
    s.at += 2;
    return parsePositional(s, 16, 'p', 2, 4, true);
  }
  std::size_t start = s.at;
  Integer numerator = 0;
  std::size_t count = s.digits(10, numerator);
  if (count > 0 && s.take('/')) {
    if (count > kMaxDigits) return fail(fmt::format("more than {} digits", kMaxDigits));
    Integer denominator = 0;
    std::size_t dcount = s.digits(10, denominator);
    if (dcount == 0) return fail("denominator has no digits (its sign belongs on the numerator)");
    if (dcount > kMaxDigits) return fail(fmt::format("more than {} digits", kMaxDigits));
    if (denominator == 0) return fail("zero denominator");
    return makeRational(numerator, denominator);
  }
  s.at = start;
  return parsePositional(s, 10, 'e', 10, 1, false);
}

}  // namespace

Result<Literal> parseLiteral(std::string_view text) {
  auto invalid = [&](const std::string& why) {
    return fail(fmt::format("'{}' is not a number: {}", text, why));
  };
  if (equalsIgnoringCase(text, "nan")) return Literal{Literal::Kind::nan, Rational(0)};
  if (equalsIgnoringCase(text, "inf") || equalsIgnoringCase(text, "+inf"))
    return Literal{Literal::Kind::posInf, Rational(0)};
  if (equalsIgnoringCase(text, "-inf")) return Literal{Literal::Kind::negInf, Rational(0)};
  if (text.empty()) return invalid("empty");

  Scanner s{text};
  bool negative = s.take('-');
  auto magnitude = parseMagnitude(s);
  if (!magnitude) return invalid(magnitude.error().message);
  if (!s.done()) return invalid(fmt::format("unexpected '{}' at offset {}", text[s.at], s.at));
  if (negative && *magnitude == 0) return Literal{Literal::Kind::negZero, Rational(0)};
  return Literal{Literal::Kind::finite, negative ? Rational(-*magnitude) : *magnitude};
}

namespace {

// Correct rounding of an exact rational to a binary format with `precision` significand bits
// (hidden bit included) and normal exponents in [minExponent, maxExponent].
template <class Float>
Float roundToBinary(const Rational& value) {
  constexpr int precision = std::numeric_limits<Float>::digits;
  constexpr long minExponent = std::numeric_limits<Float>::min_exponent - 1;
  constexpr long maxExponent = std::numeric_limits<Float>::max_exponent - 1;
  if (value == 0) return Float(0);
  bool negative = value < 0;
  Integer a = boost::multiprecision::numerator(value);
  if (negative) a = -a;
  Integer b = boost::multiprecision::denominator(value);
  // e = floor(log2(a / b)).
  long e = static_cast<long>(boost::multiprecision::msb(a)) - static_cast<long>(boost::multiprecision::msb(b));
  bool below = e >= 0 ? a < (b << static_cast<unsigned>(e)) : (a << static_cast<unsigned>(-e)) < b;
  if (below) --e;
  Float infinity = std::numeric_limits<Float>::infinity();
  if (e > maxExponent) return negative ? -infinity : infinity;
  long shift = precision - 1 - std::max(e, minExponent);  // mantissa = a * 2^shift / b
  Integer scaledA = shift >= 0 ? Integer(a << static_cast<unsigned>(shift)) : a;
  Integer scaledB = shift >= 0 ? b : Integer(b << static_cast<unsigned>(-shift));
  Integer mantissa = scaledA / scaledB;
  Integer twiceRemainder = (scaledA - mantissa * scaledB) * 2;
  if (twiceRemainder > scaledB || (twiceRemainder == scaledB && (mantissa & 1) != 0)) mantissa += 1;
  // Exact in double: the rounded value is representable in Float, or just past its largest value.
  double magnitude = std::ldexp(mantissa.convert_to<double>(), static_cast<int>(-shift));
  Float result = magnitude > static_cast<double>(std::numeric_limits<Float>::max()) ? infinity
                                                                                   : static_cast<Float>(magnitude);
  return negative ? -result : result;
}

}  // namespace

double roundToDouble(const Rational& value) { return roundToBinary<double>(value); }
float roundToFloat(const Rational& value) { return roundToBinary<float>(value); }

std::string formatRational(const Rational& value) {
  Integer n = boost::multiprecision::numerator(value);
  Integer d = boost::multiprecision::denominator(value);
  return d == 1 ? n.str() : n.str() + "/" + d.str();
}

}  // namespace tc
