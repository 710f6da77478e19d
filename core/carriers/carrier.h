#pragma once
#include <concepts>
// Carrier traits: what each scalar type can do, how it reads and writes values, and how
// properties compare it.
#include <fmt/format.h>

#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/carriers/interval.h"
#include "core/carriers/literal.h"
#include "core/carriers/modp.h"
#include "core/carriers/rational.h"
#include "core/support/remembered.h"
#include "core/support/result.h"
#include "core/support/text.h"

namespace tc {

//! What a carrier's arithmetic supports; each op requires one of these.
struct Capabilities {
  bool ring = true;
  bool field = false;
  bool ordered = false;
  bool transcendental = false;
  //! `==` decides identity of stored values and arithmetic is exact (`x + 0 == x`, `0 * y == 0`).
  bool storageEquality = false;
  //! Exact arithmetic: division by zero is a domain error rather than inf/NaN.
  bool exact = false;
  //! Values are enclosures of real numbers (intervals): two computations of one real quantity
  //! agree when their enclosures overlap, not when they are equal.
  bool enclosure = false;
};

//! The level of arithmetic an op needs from its carrier.
enum class Requirement { ring, field, ordered, orderedField, transcendental };

constexpr bool satisfies(const Capabilities& c, Requirement r) {
  switch (r) {
    case Requirement::ring: return c.ring;
    case Requirement::field: return c.field;
    case Requirement::ordered: return c.ordered;
    case Requirement::orderedField: return c.ordered && c.field;
    case Requirement::transcendental: return c.transcendental;
  }
  return false;
}

std::string_view requirementName(Requirement r);

//! Traits of a carrier type; specialised below for every carrier.
template <class T>
struct Carrier;

//! Carriers whose numbers grow with the arithmetic (exact rationals): `Carrier<T>::bits` gives a
//! value's size, the others' values have a fixed one.
template <class T>
concept GrowingCarrier = requires(const T& x) {
  { Carrier<T>::bits(x) } -> std::convertible_to<std::size_t>;
};

//! The largest size (`Carrier<T>::bits`) a value of a growing carrier may reach while a graph
//! runs: a node that would exceed it fails with an error naming it (docs/semantics.md §1.10), so
//! that no file can make exact arithmetic exhaust time or memory. 2^18 bits are 32 KiB a number.
inline constexpr std::size_t kMaxExactBits = std::size_t{1} << 18;

template <>
struct Carrier<Rational> {
  static constexpr std::string_view name = "rational";
  static constexpr Capabilities caps{true, true, true, false, true, true};
  static Rational fromInt(std::int64_t n) { return Rational(n); }
  static Result<Rational> fromLiteral(const Literal& literal);
  static std::string format(const Rational& x) { return formatRational(x); }
  static bool same(const Rational& a, const Rational& b) { return a == b; }
  static Rational detach(const Rational& x) { return x; }
  //! The size of x: the bits of its numerator and denominator together. The cost and memory of
  //! exact arithmetic grow with it; a graph's values stay within kMaxExactBits.
  static std::size_t bits(const Rational& x) {
    const auto& q = x.backend().data();
    return mpz_sizeinbase(mpq_numref(q), 2) + mpz_sizeinbase(mpq_denref(q), 2);
  }
};

template <>
struct Carrier<RationalNoEq> {
  static constexpr std::string_view name = "rational-noeq";
  static constexpr Capabilities caps{true, true, true, false, false, true};
  static RationalNoEq fromInt(std::int64_t n) { return RationalNoEq(Rational(n)); }
  static Result<RationalNoEq> fromLiteral(const Literal& literal);
  static std::string format(const RationalNoEq& x) { return formatRational(x.v); }
  static bool same(const RationalNoEq& a, const RationalNoEq& b) { return a == b; }
  static RationalNoEq detach(const RationalNoEq& x) { return x; }
  static std::size_t bits(const RationalNoEq& x) { return Carrier<Rational>::bits(x.v); }
};

template <>
struct Carrier<ModP> {
  static constexpr std::string_view name = "modp";
  static constexpr Capabilities caps{true, true, false, false, true, true};
  static ModP fromInt(std::int64_t n) { return ModP::fromInt(n); }
  static Result<ModP> fromLiteral(const Literal& literal);
  static std::string format(const ModP& x) { return std::to_string(x.residue()); }
  //! For people, not files: the residue in the symmetric range (p - 1 shows as -1), or a small
  //! fraction marked as a residue ("≡1/3 (mod p)") so that nobody reads it as an exact rational.
  static std::string display(const ModP& x);
  static bool same(const ModP& a, const ModP& b) { return a == b; }
  static ModP detach(const ModP& x) { return x; }
};

template <>
struct Carrier<Interval> {
  static constexpr std::string_view name = "interval";
  static constexpr Capabilities caps{true, true, true, true, true, true, true};
  static Interval fromInt(std::int64_t n) { return Interval(Mpfi(static_cast<long>(n))); }
  //! A finite literal's exact value, enclosed (a point when the endpoints can hold it).
  static Result<Interval> fromLiteral(const Literal& literal);
  //! Reads "[lo, hi]" or a single finite literal.
  static Result<Interval> parse(std::string_view text) { return parseInterval(text); }
  static std::string format(const Interval& x) { return formatInterval(x); }
  static std::string display(const Interval& x) { return displayInterval(x); }
  static bool same(const Interval& a, const Interval& b) { return a == b; }
  //! Two enclosures of one real number overlap.
  static bool agree(const Interval& a, const Interval& b) { return overlap(a, b); }
  static Interval detach(const Interval& x) { return x; }
  static Interval exp(const Interval& x) { return Interval(boost::multiprecision::exp(x.v)); }
  static Interval log(const Interval& x) { return Interval(boost::multiprecision::log(x.v)); }
  static Interval log1p(const Interval& x) { return Interval(boost::multiprecision::log1p(x.v)); }
  static Interval sqrt(const Interval& x) { return Interval(boost::multiprecision::sqrt(x.v)); }
  static Interval tanh(const Interval& x) { return Interval(boost::multiprecision::tanh(x.v)); }
  static Interval sin(const Interval& x) { return Interval(boost::multiprecision::sin(x.v)); }
  static Interval cos(const Interval& x) { return Interval(boost::multiprecision::cos(x.v)); }
  static Interval abs(const Interval& x) { return Interval(boost::multiprecision::abs(x.v)); }
  static bool certainlyNonzero(const Interval& x) { return !containsZero(x); }
  static bool certainlyPositive(const Interval& x) { return tc::certainlyPositive(x); }
  static bool withinRange(const Interval& x) { return tc::withinRange(x); }
  static long exponentMagnitude(const Interval& x) { return tc::exponentMagnitude(x); }
  //! The double a point holds exactly, or nothing; and a double's point. A fold whose every
  //! operation is exact in double gives, on points, the point of the same exact value.
  static std::optional<double> exactDouble(const Interval& x) { return tc::exactDouble(x); }
  static Interval fromDouble(double d) { return Interval(Mpfi(d)); }
  //! The narrowest interval around an exact sum of products of doubles: a fold of products of
  //! points enclosed with one rounding (docs/semantics.md §1.13).
  static Interval fromExactSum(const ExactProductSum::Value& sum) { return encloseExactSum(sum); }
};

//! Shared traits of the IEEE carriers: compared by bit pattern, any two NaNs equal.
template <class F>
struct IeeeCarrier {
  static constexpr Capabilities caps{true, true, true, true, false, false};
  static F fromInt(std::int64_t n) { return static_cast<F>(n); }
  static Result<F> fromLiteral(const Literal& literal);
  static std::string format(F x);
  //! format(x) appended to `out` (for writers of many values: no string per value).
  static void appendFormat(F x, std::string& out);
  static bool same(F a, F b) {
    if (std::isnan(a) && std::isnan(b)) return true;
    using Bits = std::conditional_t<sizeof(F) == 8, std::uint64_t, std::uint32_t>;
    return std::bit_cast<Bits>(a) == std::bit_cast<Bits>(b);
  }
  static F detach(F x) { return x; }
  static F exp(F x) { return std::exp(x); }
  static F log(F x) { return std::log(x); }
  static F log1p(F x) { return std::log1p(x); }
  static F sqrt(F x) { return std::sqrt(x); }
  static F tanh(F x) { return std::tanh(x); }
  static F sin(F x) { return std::sin(x); }
  static F cos(F x) { return std::cos(x); }
  static F abs(F x) { return std::fabs(x); }
  static bool isNan(F x) { return std::isnan(x); }
};

template <>
struct Carrier<double> : IeeeCarrier<double> {
  static constexpr std::string_view name = "double";
};
template <>
struct Carrier<float> : IeeeCarrier<float> {
  static constexpr std::string_view name = "float";
};

extern template struct IeeeCarrier<double>;
extern template struct IeeeCarrier<float>;

//! `x` as messages and listings show it: the carrier's `display` where it has one (modp), else
//! its file text. Files always use `format`, which the reader reads back exactly.
template <class T>
std::string displayValue(const T& x) {
  if constexpr (requires { Carrier<T>::display(x); }) return Carrier<T>::display(x);
  else return Carrier<T>::format(x);
}

//! `out += displayValue(x)`, without a string of its own where the carrier can append.
template <class T>
void appendDisplayValue(std::string& out, const T& x) {
  if constexpr (requires { Carrier<T>::display(x); }) out += Carrier<T>::display(x);
  else if constexpr (requires { Carrier<T>::appendFormat(x, out); }) Carrier<T>::appendFormat(x, out);
  else out += Carrier<T>::format(x);
}

template <class T>
T zero() {
  return Carrier<T>::fromInt(0);
}
template <class T>
T one() {
  return Carrier<T>::fromInt(1);
}

//! Whether two computed values of one quantity agree: overlapping enclosures on the interval
//! carrier, the same stored value on the others.
template <class T>
bool agree(const T& a, const T& b) {
  if constexpr (requires { Carrier<T>::agree(a, b); }) return Carrier<T>::agree(a, b);
  else return Carrier<T>::same(a, b);
}

//! x ≠ 0 for certain: on intervals, 0 lies outside x.
template <class T>
bool certainlyNonzero(const T& x) {
  if constexpr (requires { Carrier<T>::certainlyNonzero(x); }) return Carrier<T>::certainlyNonzero(x);
  else return !(x == zero<T>());
}

//! x > 0 for certain (never for NaN): on intervals, every point of x. Ordered carriers only.
template <class T>
bool certainlyPositive(const T& x) {
  if constexpr (requires { Carrier<T>::certainlyPositive(x); }) return Carrier<T>::certainlyPositive(x);
  else return x > zero<T>();
}

//! The IEEE value of a plain decimal (`-1.25`, `3e-2`) or hex float (`0x1.8p+1`), correctly
//! rounded by std::from_chars, or nullopt for anything else (specials, fractions, out-of-range
//! exponents), which the exact path reads. The same value the exact path gives, much faster.
template <class F>
std::optional<F> parseIeeeFast(std::string_view text) {
  const bool negative = text.starts_with('-');
  std::string_view magnitude = text.substr(negative ? 1 : 0);
  const bool hex = magnitude.starts_with("0x") || magnitude.starts_with("0X");
  if (hex) {
    magnitude.remove_prefix(2);
    if (magnitude.find_first_of("pP") == std::string_view::npos) return std::nullopt;  // the grammar needs it
  }
  // Leave to the exact path what it alone bounds or rejects: long digit strings, a hex float
  // without a leading digit.
  if (magnitude.empty() || magnitude.size() > 64) return std::nullopt;
  const auto first = static_cast<unsigned char>(magnitude.front());
  if (!(hex ? std::isxdigit(first) : std::isdigit(first) || first == '.')) return std::nullopt;
  F value{};
  auto [end, error] = std::from_chars(magnitude.data(), magnitude.data() + magnitude.size(), value,
                                      hex ? std::chars_format::hex : std::chars_format::general);
  if (error != std::errc() || end != magnitude.data() + magnitude.size() || std::isinf(value)) return std::nullopt;
  return negative ? -value : value;
}

namespace detail {

//! Reads a value written in a file for carrier T, every time from the text.
template <class T>
Result<T> readValue(std::string_view text) {
  if constexpr (requires { Carrier<T>::parse(text); }) return Carrier<T>::parse(text);
  if constexpr (std::is_floating_point_v<T>)
    if (auto fast = parseIeeeFast<T>(text)) return *fast;
  auto literal = parseLiteral(text);
  if (!literal) return std::unexpected(literal.error());
  auto value = Carrier<T>::fromLiteral(*literal);
  if (!value) return fail(fmt::format("{}: {}", quote(text), value.error().message));
  return value;
}

}  // namespace detail

//! Reads a value written in a file for carrier T. IEEE values are read from the text each time
//! (a direct conversion); a carrier with its own `parse` remembers its readings there (intervals:
//! parseInterval); the others, whose reading is exact arithmetic, are remembered here per thread.
template <class T>
Result<T> parseValue(std::string_view text) {
  if constexpr (std::is_floating_point_v<T> || requires { Carrier<T>::parse(text); }) {
    return detail::readValue<T>(text);
  } else {
    // Remembered by their text: the shrinker loads every candidate of a case, and each repeats nearly
    // all its parent's values; reading them again was 30% of the shrinker's own check (bench/RESULTS.md,
    // "Values read once").
    thread_local detail::Remembered<T> read;
    if (const T* known = read.find(text)) return *known;
    Result<T> value = detail::readValue<T>(text);
    if (value) read.remember(text, *value);
    return value;
  }
}

}  // namespace tc
