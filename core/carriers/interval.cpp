#include "core/carriers/interval.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>

#include "core/carriers/literal.h"
#include "core/support/mutants.h"
#include "core/support/remembered.h"
#include "core/support/text.h"

namespace tc {
namespace {

mpfr_srcptr lowerOf(const Interval& x) { return &x.v.backend().data()->left; }
mpfr_srcptr upperOf(const Interval& x) { return &x.v.backend().data()->right; }

// Endpoints are never NaN (the carrier refuses what would make one); were one NaN, it sorts
// after every number, so that the order stays total.
int compareEndpoints(mpfr_srcptr a, mpfr_srcptr b) {
  const bool aNan = mpfr_nan_p(a) != 0, bNan = mpfr_nan_p(b) != 0;
  if (aNan || bNan) return aNan == bNan ? 0 : (aNan ? 1 : -1);
  return mpfr_cmp(a, b);
}

// mpfr_asprintf's text, freed by mpfr_free_str.
template <class... Args>
std::string mpfrText(const char* format, Args... args) {
  char* raw = nullptr;
  if (mpfr_asprintf(&raw, format, args...) < 0) std::abort();  // out of memory
  std::string text(raw);
  mpfr_free_str(raw);
  return text;
}

// A finite endpoint's exact text, every time from its value: its fraction when that is short
// (integers, small dyadic values), else a hex float, which is exact for every binary endpoint.
std::string writeEndpoint(mpfr_srcptr x) {
  // Beyond 2^±81 the numerator or the denominator has more than 24 digits: no exact rational to
  // build (at up to 2^30000, one of 9,000 digits) only to throw it away.
  if (std::labs(mpfr_get_exp(x)) > 81) return mpfrText("%Ra", x);
  Rational q;
  mpfr_get_q(q.backend().data(), x);
  std::string fraction = formatRational(q);
  if (fraction.size() <= 24) return fraction;
  return mpfrText("%Ra", x);
}

// What makes a regular endpoint the number it is: its precision, sign, exponent and significand (whose
// bits beyond the precision MPFR keeps 0), as bytes.
std::string endpointKey(mpfr_srcptr x) {
  const mpfr_prec_t precision = mpfr_get_prec(x);
  const int sign = mpfr_signbit(x) ? 1 : 0;
  const mpfr_exp_t exponent = mpfr_get_exp(x);
  std::string key;
  auto append = [&](const void* bytes, std::size_t size) { key.append(static_cast<const char*>(bytes), size); };
  append(&precision, sizeof precision);
  append(&sign, sizeof sign);
  append(&exponent, sizeof exponent);
  append(mpfr_custom_get_significand(x), mpfr_custom_get_size(precision));
  return key;
}

// An endpoint's text, remembered per thread: a case's document is written again for every candidate
// the shrinker tries, and each repeats nearly all its parent's values; turning an endpoint into an
// exact fraction was a third of the interval rows of the shrinker's own check (bench/RESULTS.md,
// "Intervals written once").
std::string formatEndpoint(mpfr_srcptr x) {
  if (mpfr_zero_p(x)) return "0";
  if (mpfr_inf_p(x)) return mpfr_sgn(x) > 0 ? "inf" : "-inf";
  if (mpfr_nan_p(x)) return writeEndpoint(x);  // never made (see compareEndpoints); no key to remember it by
  thread_local detail::Remembered<std::string> written;
  const std::string key = endpointKey(x);
  if (const std::string* known = written.find(key)) return *known;
  std::string text = writeEndpoint(x);
  written.remember(key, text);
  return text;
}

Result<Rational> finiteValue(std::string_view text) {
  auto literal = parseLiteral(text);
  if (!literal) return std::unexpected(literal.error());
  if (literal->kind == Literal::Kind::negZero) return Rational(0);
  if (literal->kind != Literal::Kind::finite)
    return fail(fmt::format("{}: an interval's endpoints are finite numbers", quote(text)));
  return literal->value;
}

}  // namespace

int Interval::compareIntervals(const Interval& a, const Interval& b) {
  if (int lower = compareEndpoints(lowerOf(a), lowerOf(b)); lower != 0) return lower;
  return compareEndpoints(upperOf(a), upperOf(b));
}

Interval enclose(const Rational& lo, const Rational& hi) {
  Interval x;
  mpfi_interv_q(x.v.backend().data(), lo.backend().data(), hi.backend().data());
  return x;
}

bool withinRange(const Interval& x) {
  auto inRange = [](mpfr_srcptr endpoint) {
    return mpfr_zero_p(endpoint) || (mpfr_number_p(endpoint) && std::labs(mpfr_get_exp(endpoint)) <= kMaxIntervalExponent);
  };
  return inRange(lowerOf(x)) && inRange(upperOf(x));
}

std::optional<double> exactDouble(const Interval& x) {
  if (!mpfr_equal_p(lowerOf(x), upperOf(x))) return std::nullopt;
  const double d = mpfr_get_d(lowerOf(x), MPFR_RNDN);
  if (mpfr_cmp_d(lowerOf(x), d) != 0 && !TC_MUTANT(interval_point_taken_as_double)) return std::nullopt;
  return d;
}

std::optional<Rational> pointValue(const Interval& x) {
  if (!mpfr_equal_p(lowerOf(x), upperOf(x))) return std::nullopt;
  Rational q;
  mpfr_get_q(q.backend().data(), lowerOf(x));
  return q;
}

long exponentMagnitude(const Interval& x) {
  auto of = [](mpfr_srcptr endpoint) { return mpfr_regular_p(endpoint) ? std::labs(mpfr_get_exp(endpoint)) : 0L; };
  return std::max(of(lowerOf(x)), of(upperOf(x)));
}

Result<Interval> encloseInRange(const Rational& lo, const Rational& hi, std::string_view text) {
  Interval x = enclose(lo, hi);
  if (!withinRange(x))
    return fail(fmt::format("{}: beyond 2^±{}, the interval carrier's range", quote(text), kMaxIntervalExponent));
  return x;
}

Interval encloseExactSum(const ExactProductSum::Value& sum) {
  Interval x;
  mpfi_ptr out = x.v.backend().data();
  if (sum.digits.empty()) {
    mpfi_set_ui(out, 0);
    return x;
  }
  static thread_local Integer magnitude;  // its limbs reused from one sum to the next
  mpz_ptr z = magnitude.backend().data();
  mpz_import(z, sum.digits.size(), -1, sizeof(std::uint64_t), 0, 0, sum.digits.data());
  if (sum.negative) mpz_neg(z, z);
  mpfi_set_z(out, z);  // rounded outward to the endpoints' 257 bits
  mpfi_mul_2si(out, out, sum.exponent);
  return x;
}

bool overlap(const Interval& a, const Interval& b) {
  return mpfr_cmp(upperOf(a), lowerOf(b)) >= 0 && mpfr_cmp(upperOf(b), lowerOf(a)) >= 0;
}

bool containsZero(const Interval& x) { return mpfr_sgn(lowerOf(x)) <= 0 && mpfr_sgn(upperOf(x)) >= 0; }

bool certainlyPositive(const Interval& x) { return mpfr_sgn(lowerOf(x)) > 0; }

double relativeWidth(const Interval& x) {
  if (mpfr_zero_p(lowerOf(x)) && mpfr_zero_p(upperOf(x))) return 0;
  mpfr_t width, scale;
  mpfr_inits2(mpfr_get_prec(lowerOf(x)) + 2, width, scale, static_cast<mpfr_ptr>(nullptr));
  mpfr_sub(width, upperOf(x), lowerOf(x), MPFR_RNDU);
  mpfr_abs(scale, lowerOf(x), MPFR_RNDN);
  if (mpfr_cmpabs(upperOf(x), scale) > 0) mpfr_abs(scale, upperOf(x), MPFR_RNDN);
  mpfr_div(width, width, scale, MPFR_RNDU);
  const double result = mpfr_get_d(width, MPFR_RNDU);
  mpfr_clears(width, scale, static_cast<mpfr_ptr>(nullptr));
  return result;
}

bool contains(const Interval& x, const Rational& q) {
  return mpfr_cmp_q(lowerOf(x), q.backend().data()) <= 0 && mpfr_cmp_q(upperOf(x), q.backend().data()) >= 0;
}

std::string formatInterval(const Interval& x) {
  return fmt::format("[{}, {}]", formatEndpoint(lowerOf(x)), formatEndpoint(upperOf(x)));
}

std::string displayInterval(const Interval& x) {
  if (mpfr_equal_p(lowerOf(x), upperOf(x))) {
    std::string exact = formatEndpoint(lowerOf(x));
    if (exact.size() <= 24) return exact;
  }
  return fmt::format("[{}, {}]", mpfrText("%.17RDg", lowerOf(x)), mpfrText("%.17RUg", upperOf(x)));
}

namespace {

Result<Interval> parseIntervalText(std::string_view text) {
  if (!text.starts_with('[')) {
    auto value = finiteValue(text);
    if (!value) return std::unexpected(value.error());
    return encloseInRange(*value, *value, text);
  }
  const auto comma = text.find(',');
  if (!text.ends_with(']') || comma == std::string_view::npos)
    return fail(fmt::format("{}: an interval is written \"[lo, hi]\"", quote(text)));
  auto trimmed = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
  };
  auto lo = finiteValue(trimmed(text.substr(1, comma - 1)));
  if (!lo) return std::unexpected(lo.error());
  auto hi = finiteValue(trimmed(text.substr(comma + 1, text.size() - comma - 2)));
  if (!hi) return std::unexpected(hi.error());
  if (*hi < *lo) return fail(fmt::format("{}: the lower endpoint exceeds the upper one", quote(text)));
  return encloseInRange(*lo, *hi, text);
}

}  // namespace

// What parseIntervalText made of each text lately (refusals too), per thread. A text's reading depends on
// the text alone, and the shrinker and the file checks read the same values over and over (each
// candidate of a case holds nearly all of its values): the exact rationals and their enclosures were
// half of an interval run's time.
Result<Interval> parseInterval(std::string_view text) {
  thread_local detail::Remembered<Result<Interval>> parsed;
  if (const Result<Interval>* known = parsed.find(text)) return *known;
  Result<Interval> reading = parseIntervalText(text);
  parsed.remember(text, reading);
  return reading;
}

}  // namespace tc
