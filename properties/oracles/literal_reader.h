#pragma once
// Oracle for the reader of values (docs/file-format.md#values): tapecheck's parser agrees with an
// independent one on every value of the case, written in the forms the format allows. On double
// and float the other parser is the C library's strtod / strtof (correctly rounded, ties to even),
// on both of tapecheck's paths (the fast one for short plain numbers and the exact one); on
// rationals it is GMP's mpq_set_str and mpz_set_str (through Boost.Multiprecision's constructors). The texts are made here, apart from the
// writer: the shortest decimal, the hex float of printf's %a (also in upper case), the exact decimal
// expansion (plain and with an exponent, also "E"), the exact midpoint to the next value up (a tie)
// and a decimal just above it, both as fractions too, the specials (also "NaN", "INF", "-Inf");
// on rationals fractions unreduced and, where the denominator allows, decimals.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cctype>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "core/carriers/literal.h"
#include "core/io/case_file.h"
#include "core/ops/library.hpp"
#include "properties/compare.hpp"

namespace tc::props {
namespace detail {

//! An integer's decimal digits with a point `fractionDigits` places from the right ("-0.125").
inline std::string withPoint(bool negative, const Integer& magnitude, std::size_t fractionDigits) {
  std::string text = magnitude.str();
  if (fractionDigits > 0) {
    if (text.size() <= fractionDigits) text.insert(0, fractionDigits + 1 - text.size(), '0');
    text.insert(text.size() - fractionDigits, ".");
  }
  return (negative ? "-" : "") + text;
}

//! The exact decimal of ±m·2^e, in plain notation: m·2^e, or m·5^k / 10^k for e = -k.
inline std::string exactDecimal(bool negative, std::uint64_t m, long e) {
  if (e >= 0) return withPoint(negative, Integer(m) << e, 0);
  const auto k = static_cast<unsigned>(-e);
  return withPoint(negative, Integer(m) * boost::multiprecision::pow(Integer(5), k), k);
}

//! "1.234e-5" from the plain "0.00001234": the same digits with the point after the first nonzero one.
inline std::string scientific(const std::string& plain) {
  const bool negative = plain.starts_with('-');
  std::string digits;
  long point = -1;
  for (char ch : plain.substr(negative ? 1 : 0)) {
    if (ch == '.') point = static_cast<long>(digits.size());
    else digits += ch;
  }
  if (point < 0) point = static_cast<long>(digits.size());
  std::size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return plain;
  std::string mantissa = digits.substr(first, 1) + (digits.size() > first + 1 ? "." + digits.substr(first + 1) : "");
  return fmt::format("{}{}e{}", negative ? "-" : "", mantissa, point - static_cast<long>(first) - 1);
}

//! The texts of an IEEE value x the property reads: the writer's (shortest) decimal, printf's
//! %.17g (%.9g) and %a, the exact decimal (plain and scientific), the exact midpoint to the next
//! value up (plain and scientific) and a decimal just above it; a special's one text.
template <class F>
std::vector<std::string> ieeeTexts(F x) {
  if (std::isnan(x)) return {"nan"};
  if (std::isinf(x)) return {x > 0 ? "inf" : "-inf"};
  constexpr int precision = std::numeric_limits<F>::digits;               // 53, 24
  constexpr long lowest = std::numeric_limits<F>::min_exponent - precision;  // -1074, -149
  char roundTrip[64], hex[64];
  std::snprintf(roundTrip, sizeof roundTrip, "%.*g", std::numeric_limits<F>::max_digits10, static_cast<double>(x));
  std::snprintf(hex, sizeof hex, "%a", static_cast<double>(x));
  std::vector<std::string> texts{Carrier<F>::format(x), roundTrip, hex};
  if (x == 0) {
    texts.push_back(std::signbit(x) ? "-0" : "0");
    return texts;
  }
  // x = ±m·2^e with m whole; ulp = 2^e once e is clamped to the subnormal exponent.
  int exponent = 0;
  F fraction = std::frexp(std::fabs(x), &exponent);
  auto m = static_cast<std::uint64_t>(std::ldexp(fraction, precision));
  long e = exponent - precision;
  if (e < lowest) m >>= (lowest - e), e = lowest;
  const bool negative = std::signbit(x);
  std::string exact = exactDecimal(negative, m, e);
  std::string midpoint = exactDecimal(negative, 2 * m + 1, e - 1);
  std::string above = midpoint + (midpoint.find('.') == std::string::npos ? ".000001" : "000001");
  for (const std::string& text : {exact, scientific(exact), midpoint, scientific(midpoint), above})
    texts.push_back(text);
  return texts;
}

//! A text of a value and the text the other parser reads for it: the same text, or for a fraction
//! (which strtod does not read) its exact decimal.
struct TextForm {
  std::string text;
  std::string forOther;
};

//! ieeeTexts, and the forms of the grammar they leave out: the value as a fraction (exact, and the
//! midpoint to the next value up, whose rounding is a tie), in upper case (a hex float's "0X…P", an
//! exponent's "E", "NaN", "INF", "-Inf").
template <class F>
std::vector<TextForm> ieeeForms(F x) {
  std::vector<TextForm> forms;
  for (const std::string& text : ieeeTexts(x)) forms.push_back({text, text});
  auto upper = [](std::string text) {
    for (char& ch : text) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return text;
  };
  if (std::isnan(x)) return forms.push_back({"NaN", "nan"}), forms;
  if (std::isinf(x)) {
    forms.push_back({upper(forms.front().text), forms.front().text});
    if (x < 0) forms.push_back({"-Inf", "-inf"});
    return forms;
  }
  char hex[64];
  std::snprintf(hex, sizeof hex, "%a", static_cast<double>(x));
  forms.push_back({upper(hex), hex});
  if (x == 0) return forms;
  constexpr int precision = std::numeric_limits<F>::digits;
  constexpr long lowest = std::numeric_limits<F>::min_exponent - precision;
  int exponent = 0;
  auto m = static_cast<std::uint64_t>(std::ldexp(std::frexp(std::fabs(x), &exponent), precision));
  long e = exponent - precision;
  if (e < lowest) m >>= (lowest - e), e = lowest;
  const bool negative = std::signbit(x);
  const std::string exact = exactDecimal(negative, m, e);
  forms.push_back({upper(scientific(exact)), exact});
  const std::string sign = negative ? "-" : "";
  if (e >= 0) {
    forms.push_back({sign + (Integer(3 * m) << e).str() + "/3", exact});
  } else {
    const auto k = static_cast<unsigned>(-e);
    forms.push_back({sign + std::to_string(m) + "/" + (Integer(1) << k).str(), exact});
    forms.push_back({sign + Integer(2 * m + 1).str() + "/" + (Integer(1) << (k + 1)).str(), exactDecimal(negative, 2 * m + 1, e - 1)});
  }
  return forms;
}

template <class F>
F libcParse(const std::string& text) {
  if constexpr (std::is_same_v<F, float>) return std::strtof(text.c_str(), nullptr);
  else return std::strtod(text.c_str(), nullptr);
}

template <class F>
auto bitsOf(F x) {
  return std::bit_cast<std::conditional_t<sizeof(F) == 8, std::uint64_t, std::uint32_t>>(x);
}

//! tapecheck's readings of a text on carrier T, each with the path it took for a message: on IEEE
//! carriers parseValue (which has a fast path for short plain numbers) and the exact path
//! (parseLiteral, then fromLiteral); on the others parseValue.
template <class T>
struct Reading {
  std::string_view path;
  Result<T> value;
};
template <class T>
std::vector<Reading<T>> tapecheckReadings(const std::string& text) {
  std::vector<Reading<T>> readings{{"", parseValue<T>(text)}};
  if constexpr (std::is_floating_point_v<T>) {
    auto literal = parseLiteral(text);
    readings.push_back({" (exact path)", literal ? Carrier<T>::fromLiteral(*literal) : std::unexpected(literal.error())});
  }
  return readings;
}

//! Reads a text on carrier T as tapecheckReadings does (a test puts a faulty reader in its place).
template <class T>
using Reader = std::function<std::vector<Reading<T>>(const std::string&)>;

//! The first form of x on which tapecheck's reader (either path) and the C library's disagree.
template <class F>
std::string ieeeDisagreement(F x, const Reader<F>& read = tapecheckReadings<F>) {
  for (const auto& [text, forOther] : ieeeForms(x)) {
    const F expected = libcParse<F>(forOther);
    for (const auto& [path, got] : read(text)) {
      if (!got) return fmt::format("'{}'{}: tapecheck refuses it ({}), the C library reads {}", text, path,
                                   got.error().message, Carrier<F>::format(expected));
      if (bitsOf(*got) != bitsOf(expected))
        return fmt::format("'{}'{}: tapecheck reads {} ({:#x}), the C library {} ({:#x})", text, path,
                           Carrier<F>::format(*got), bitsOf(*got), Carrier<F>::format(expected), bitsOf(expected));
    }
  }
  return {};
}

//! GMP's reading of "p/q" or "p" (mpq_set_str), or of a plain decimal "i.f" (mpz_set_str of the
//! digits, over 10^|f|), in base 10.
inline Rational gmpReading(const std::string& text) {
  Rational value;
  const std::size_t point = text.find('.');
  if (point == std::string::npos) {
    mpq_set_str(value.backend().data(), text.c_str(), 10);
    mpq_canonicalize(value.backend().data());
    return value;
  }
  Integer digits;
  mpz_set_str(digits.backend().data(), (text.substr(0, point) + text.substr(point + 1)).c_str(), 10);
  return Rational(digits, boost::multiprecision::pow(Integer(10), static_cast<unsigned>(text.size() - point - 1)));
}

//! Whether a decimal text ("-0.0125", "1.25e-2") keeps to the format's bounds on digits and
//! exponent: a value may be legal while one of its decimal forms is not (2^-20001 has 20,002
//! digits written out; 2^33300 is 1.99…e10024).
inline bool withinLiteralBounds(const std::string& text) {
  const std::size_t marker = text.find('e');
  const std::string mantissa = text.substr(0, marker);
  const auto digits = static_cast<std::size_t>(std::count_if(mantissa.begin(), mantissa.end(), [](char ch) {
    return ch >= '0' && ch <= '9';
  }));
  const long exponent = marker == std::string::npos ? 0 : std::labs(std::stol(text.substr(marker + 1)));
  return digits <= kMaxLiteralDigits && exponent <= kMaxLiteralDecimalExponent;
}

//! The texts of a rational p/q: canonical, unreduced "3p/3q", and its exact decimal (plain and
//! scientific) when q = 2^a·5^b and the form keeps to the format's bounds. Each comes with the
//! plain text GMP reads.
inline std::vector<std::pair<std::string, std::string>> rationalTexts(const Rational& x) {
  const Integer p = boost::multiprecision::numerator(x), q = boost::multiprecision::denominator(x);
  std::vector<std::pair<std::string, std::string>> texts{{formatRational(x), formatRational(x)}};
  const std::string unreduced = (3 * p).str() + "/" + (3 * q).str();
  texts.push_back({unreduced, unreduced});
  Integer rest = q;
  unsigned twos = 0, fives = 0;
  for (; rest % 2 == 0; rest /= 2) ++twos;
  for (; rest % 5 == 0; rest /= 5) ++fives;
  if (rest == 1) {  // p/q = p·2^(k-a)·5^(k-b) / 10^k
    const unsigned k = std::max(twos, fives);
    Integer scaled = boost::multiprecision::abs(p) * boost::multiprecision::pow(Integer(2), k - twos) *
                     boost::multiprecision::pow(Integer(5), k - fives);
    const std::string plain = withPoint(p < 0, scaled, k);
    for (const std::string& text : {plain, scientific(plain)})
      if (withinLiteralBounds(text)) texts.push_back({text, plain});
  }
  return texts;
}

//! The first text of x on which tapecheck's reader and GMP's disagree.
inline std::string rationalDisagreement(const Rational& x, const Reader<Rational>& read = tapecheckReadings<Rational>) {
  for (const auto& [text, plain] : rationalTexts(x)) {
    const Rational expected = gmpReading(plain);
    for (const auto& [path, got] : read(text)) {
      if (!got)
        return fmt::format("'{}': tapecheck refuses it ({}), GMP reads {}", text, got.error().message, formatRational(expected));
      if (*got != expected)
        return fmt::format("'{}': tapecheck reads {}, GMP {}", text, formatRational(*got), formatRational(expected));
    }
  }
  return {};
}

//! Calls f(x, position) on every value a case holds, in place, with the position that holds it
//! (none for data): input values, seeds, and the constants of its nodes (const values, scale's c,
//! clamp's bounds).
template <class T, class F>
void forEachValueOf(const Case<T>& c, F&& f) {
  auto eachOfPack = [&](const Pack<T>& pack) {
    for (std::size_t p = 0; p < pack.size(); ++p)
      for (const T& x : pack[p].values) f(x, std::optional<std::size_t>(p));
  };
  if (c.inputs) eachOfPack(*c.inputs);
  eachOfPack(c.seeds);
  for (const auto& [key, tensor] : c.data)
    for (const T& x : tensor.values) f(x, std::optional<std::size_t>());
  for (std::size_t k = c.graph.inputs.size(); k < c.graph.positionCount(); ++k)
    ops::forEachAttributeValue(c.graph.nodeAt(k).op, c.graph.nodeAt(k).attrs,
                               [&](const T& x) { f(x, std::optional<std::size_t>(k)); });
}

//! Orders values as the reader tells them apart: IEEE values by bit pattern (-0 and 0 are two),
//! others by value.
template <class T>
struct ReaderOrder {
  bool operator()(const T* a, const T* b) const {
    if constexpr (std::is_floating_point_v<T>) return bitsOf(*a) < bitsOf(*b);
    else return *a < *b;
  }
};

}  // namespace detail

//! One distinct value of a case, in place (the case must outlive it), and the first position that
//! holds it (none for data).
template <class T>
struct DistinctValue {
  const T* value;
  std::optional<std::size_t> position;
};

//! Every distinct value a case holds (by bit pattern on IEEE carriers), in the order of its inputs,
//! seeds, data and constants: a value's texts, and so literal_reader's verdict on it, depend on the
//! value alone, so each is read once (a 512 x 512 input of small integers has a dozen). The work
//! budget counts them (cli/budget.h); nothing is copied.
template <class T>
std::vector<DistinctValue<T>> distinctValuesOf(const Case<T>& c) {
  std::set<const T*, detail::ReaderOrder<T>> seen;
  std::vector<DistinctValue<T>> distinct;
  detail::forEachValueOf(c, [&](const T& x, std::optional<std::size_t> position) {
    if (seen.insert(&x).second) distinct.push_back({&x, position});
  });
  return distinct;
}
//! A temporary case would leave the values pointing nowhere.
template <class T>
void distinctValuesOf(const Case<T>&&) = delete;

//! Whether literal_reader runs on the carrier T: the exact rationals and the IEEE carriers.
template <class T>
inline constexpr bool readsLiterals = std::is_same_v<T, Rational> || std::is_floating_point_v<T>;

template <class T>
Verdict literal_reader(const Case<T>& c) {
  for (const auto& [x, position] : distinctValuesOf(c)) {
    std::string disagreement;
    if constexpr (std::is_floating_point_v<T>) disagreement = detail::ieeeDisagreement(*x);
    else disagreement = detail::rationalDisagreement(*x);
    if (disagreement.empty()) continue;
    std::string where = position ? fmt::format("a value of position {}", *position) : std::string("a data value");
    return Verdict::fail(fmt::format("parseValue vs {} on {}: {}", std::is_floating_point_v<T> ? "the C library" : "GMP",
                                     where, disagreement),
                         position ? std::set<std::size_t>{*position} : std::set<std::size_t>{});
  }
  return Verdict::pass();
}

}  // namespace tc::props
