#include "core/carriers/literal.h"

#include "core/support/mutants.h"
#include "core/support/text.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>

namespace tc {
namespace {

// Bounds beside kMaxLiteralDigits and kMaxLiteralDecimalExponent (literal.h). Every accepted value
// has a numerator and denominator below 2^kMaxBits, whose canonical text has fewer than
// kMaxLiteralDigits digits, so whatever the writer writes the reader reads back.
constexpr long kMaxBinaryExponent = 40000;
constexpr std::size_t kMaxBits = 65536;

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}

bool isDigit(char c, int base) {
  if (c >= '0' && c <= '9') return true;
  return base == 16 && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
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
  //! The run of digits of `base` at the cursor (possibly empty).
  std::string_view digits(int base) {
    std::size_t from = at;
    while (!done() && isDigit(text[at], base)) ++at;
    return text.substr(from, at - from);
  }
};

// The value of a digit string, converted by GMP in one call (not digit by digit, which would be
// quadratic).
Integer integerOf(std::string_view digits, int base) {
  Integer value;
  if (!digits.empty()) mpz_set_str(value.backend().data(), std::string(digits).c_str(), base);
  return value;
}

Result<long> parseExponent(Scanner& s, long limit) {
  bool negative = s.take('-');
  if (!negative) s.take('+');
  std::string_view digits = s.digits(10);
  if (digits.empty()) return fail("exponent has no digits");
  long e = 0;
  for (char c : digits) {
    e = e * 10 + (c - '0');
    if (e > limit) return fail(fmt::format("exponent exceeds {}", limit));
  }
  return negative ? -e : e;
}

Rational scaleByPower(const Integer& mantissa, unsigned base, long exponent) {
  Integer power = boost::multiprecision::pow(Integer(base), static_cast<unsigned>(std::labs(exponent)));
  return exponent >= 0 ? Rational(mantissa * power) : makeRational(mantissa, power);
}

Result<void> checkDigitCount(std::size_t count) {
  if (count > kMaxLiteralDigits) return fail(fmt::format("more than {} digits", kMaxLiteralDigits));
  return {};
}

// mantissa = digits[.digits], then an exponent introduced by `marker`, in `base`.
Result<Rational> parsePositional(Scanner& s, int base, char marker, unsigned exponentBase, int bitsPerDigit,
                                 bool exponentRequired) {
  std::string_view whole = s.digits(base);
  std::string_view fraction;
  if (s.take('.')) fraction = s.digits(base);
  if (whole.size() + fraction.size() == 0) return fail("no digits");
  if (auto ok = checkDigitCount(whole.size() + fraction.size()); !ok) return std::unexpected(ok.error());
  if (TC_MUTANT(reader_decimal_truncated) && base == 10 && whole.size() < 20 && whole.size() + fraction.size() > 20)
    fraction = fraction.substr(0, 20 - whole.size());
  Integer mantissa = integerOf(std::string(whole) + std::string(fraction), base);
  long exponent = 0;
  if (s.takeEither(marker, static_cast<char>(std::toupper(marker)))) {
    auto e = parseExponent(s, exponentBase == 10 ? kMaxLiteralDecimalExponent : kMaxBinaryExponent);
    if (!e) return std::unexpected(e.error());
    exponent = *e;
  } else if (exponentRequired) {
    return fail("hex float needs a 'p' exponent");
  }
  long scaled = exponent - static_cast<long>(fraction.size()) * bitsPerDigit;
  return scaleByPower(mantissa, exponentBase, scaled);
}

Result<Rational> parseMagnitude(Scanner& s) {
  std::string_view rest = s.text.substr(s.at);
  if (rest.starts_with("0x") || rest.starts_with("0X")) {
    s.at += 2;
    return parsePositional(s, 16, 'p', 2, 4, true);
  }
  std::size_t start = s.at;
  std::string_view numerator = s.digits(10);
  if (!numerator.empty() && s.take('/')) {
    std::string_view denominator = s.digits(10);
    if (denominator.empty()) return fail("denominator has no digits (its sign belongs on the numerator)");
    if (auto ok = checkDigitCount(std::max(numerator.size(), denominator.size())); !ok)
      return std::unexpected(ok.error());
    Integer d = integerOf(denominator, 10);
    if (d == 0) return fail("zero denominator");
    return makeRational(integerOf(numerator, 10), d);
  }
  s.at = start;
  return parsePositional(s, 10, 'e', 10, 1, false);
}

Result<void> checkSize(const Rational& value) {
  auto bits = [](const Integer& n) { return n == 0 ? 0 : boost::multiprecision::msb(abs(n)) + 1; };
  if (bits(boost::multiprecision::numerator(value)) > kMaxBits || bits(boost::multiprecision::denominator(value)) > kMaxBits)
    return fail(fmt::format("numerator or denominator exceeds 2^{}", kMaxBits));
  return {};
}

}  // namespace

Result<Literal> parseLiteral(std::string_view text) {
  auto invalid = [&](const std::string& why) { return fail(fmt::format("{} is not a number: {}", quote(text), why)); };
  if (equalsIgnoringCase(text, "nan")) return Literal{Literal::Kind::nan, Rational(0)};
  if (equalsIgnoringCase(text, "inf")) return Literal{Literal::Kind::posInf, Rational(0)};
  if (equalsIgnoringCase(text, "-inf")) return Literal{Literal::Kind::negInf, Rational(0)};
  if (text.empty()) return invalid("empty");

  Scanner s{text};
  bool negative = s.take('-');
  auto magnitude = parseMagnitude(s);
  if (!magnitude) return invalid(magnitude.error().message);
  if (!s.done()) return invalid(fmt::format("unexpected {} at offset {}", quote(text.substr(s.at, 1)), s.at));
  if (auto ok = checkSize(*magnitude); !ok) return invalid(ok.error().message);
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
