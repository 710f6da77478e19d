#include "properties/oracles/accuracy.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace tc::props {
namespace {

mpfr_srcptr lowerOf(const Mpfi& x) { return &x.backend().data()->left; }
mpfr_srcptr upperOf(const Mpfi& x) { return &x.backend().data()->right; }

Mpfi powerOfTwo(long exponent) {
  Mpfi out(1);
  mpfi_mul_2si(out.backend().data(), out.backend().data(), exponent);
  return out;
}

mpfr_ptr lowerOf(Interval& x) { return &x.v.backend().data()->left; }
mpfr_ptr upperOf(Interval& x) { return &x.v.backend().data()->right; }
mpfr_srcptr lowerOf(const Interval& x) { return lowerOf(x.v); }
mpfr_srcptr upperOf(const Interval& x) { return upperOf(x.v); }

// Judging runs at every element of every node: its intermediate reals live here, made once per
// thread at the intervals' precision, instead of a dozen MPFI temporaries allocated per element.
struct Scratch {
  mpfr_t stand, low, high, distance, allowedLow, allowedHigh, quotient;
  Scratch() {
    const mpfr_prec_t precision = mpfr_get_prec(lowerOf(Mpfi(0)));
    for (mpfr_ptr x : all()) mpfr_init2(x, precision);
  }
  ~Scratch() {
    for (mpfr_ptr x : all()) mpfr_clear(x);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::array<mpfr_ptr, 7> all() { return {stand, low, high, distance, allowedLow, allowedHigh, quotient}; }
};

Scratch& scratch() {
  static thread_local Scratch s;
  return s;
}

// The binary exponent e of the unit in the last place of the format at the exact value, 2^e: at
// the larger magnitude the enclosure holds (so that the budget errs toward passing), and never
// below the subnormals'.
long ulpExponent(const Interval& exact, const IeeeFormat& format) {
  mpfr_srcptr larger = mpfr_cmpabs(lowerOf(exact), upperOf(exact)) > 0 ? lowerOf(exact) : upperOf(exact);
  long binade = format.minExponent;
  if (!mpfr_zero_p(larger)) binade = std::max<long>(binade, mpfr_get_exp(larger) - 1);
  return binade - format.precision + 1;
}

// The budget at the exact value, `ulps` ulps of it plus `accumulated`, into s.allowedLow and
// s.allowedHigh (rounded outward: ulps·2^e is exact).
void budgetAt(Scratch& s, const Interval& exact, const IeeeFormat& format, double ulps, const Interval* accumulated) {
  mpfr_set_d(s.allowedLow, ulps, MPFR_RNDN);
  mpfr_mul_2si(s.allowedLow, s.allowedLow, ulpExponent(exact, format), MPFR_RNDN);
  mpfr_set(s.allowedHigh, s.allowedLow, MPFR_RNDN);
  if (!accumulated) return;
  mpfr_add(s.allowedLow, s.allowedLow, lowerOf(*accumulated), MPFR_RNDD);
  mpfr_add(s.allowedHigh, s.allowedHigh, upperOf(*accumulated), MPFR_RNDU);
}

// Whether an infinity of this sign is the correctly rounded value of every real in `exact`: at or
// beyond 2^(maxExponent + 1), held in s.stand.
bool overflowsTo(double infinity, const Interval& exact, const Scratch& s) {
  return infinity > 0 ? mpfr_cmp(lowerOf(exact), s.stand) >= 0 : mpfr_cmp(upperOf(exact), s.stand) <= 0;
}

}  // namespace

ops::RoundingModel<Interval> roundingModelOf(const IeeeFormat& format) {
  const Mpfi largest = powerOfTwo(format.maxExponent + 1) - powerOfTwo(format.maxExponent + 1 - format.precision);
  return {Interval(powerOfTwo(-format.precision)), Interval(powerOfTwo(format.minExponent - format.precision)),
          Interval(largest)};
}

double nearestDouble(const Interval& exact) {
  return boost::multiprecision::median(exact.v).convert_to<double>();
}

ElementJudgement judgeElement(double value, const Interval& exact, const IeeeFormat& format, double ulpBudget,
                              const Interval* accumulated) {
  constexpr double unbounded = std::numeric_limits<double>::infinity();
  if (std::isnan(value)) return {false, unbounded, unbounded};
  Scratch& s = scratch();
  if (std::isinf(value)) {  // it stands for ±2^(maxExponent + 1)
    mpfr_set_si_2exp(s.stand, value > 0 ? 1 : -1, format.maxExponent + 1, MPFR_RNDN);
    if (overflowsTo(value, exact, s)) return {true, 0, 0};
  } else {
    mpfr_set_d(s.stand, value, MPFR_RNDN);
  }
  // From the nearest real the enclosure holds, what the verdict turns on: the lower end of
  // |exact − stand| (0 where the enclosure holds the value).
  mpfr_sub(s.low, lowerOf(exact), s.stand, MPFR_RNDD);
  mpfr_sub(s.high, upperOf(exact), s.stand, MPFR_RNDU);
  if (mpfr_sgn(s.low) > 0) mpfr_set(s.distance, s.low, MPFR_RNDN);
  else if (mpfr_sgn(s.high) < 0) mpfr_neg(s.distance, s.high, MPFR_RNDN);
  else mpfr_set_zero(s.distance, 1);
  budgetAt(s, exact, format, ulpBudget, accumulated);
  const bool within = mpfr_cmp(s.distance, s.allowedHigh) <= 0;
  double ofBudget = 0;
  if (!mpfr_zero_p(s.distance)) {
    if (mpfr_sgn(s.allowedLow) <= 0) {
      ofBudget = unbounded;
    } else {
      mpfr_div(s.quotient, s.distance, s.allowedLow, MPFR_RNDU);
      ofBudget = mpfr_get_d(s.quotient, MPFR_RNDU);
    }
  }
  mpfr_mul_2si(s.quotient, s.distance, -ulpExponent(exact, format), MPFR_RNDU);  // exact: a power of two
  return {within, mpfr_get_d(s.quotient, MPFR_RNDU), ofBudget};
}

Interval widenedByBudget(const Interval& exact, const IeeeFormat& format, double ulps, const Interval* accumulated) {
  Scratch& s = scratch();
  budgetAt(s, exact, format, ulps, accumulated);
  Interval out = exact;
  mpfr_sub(lowerOf(out), lowerOf(exact), s.allowedHigh, MPFR_RNDD);
  mpfr_add(upperOf(out), upperOf(exact), s.allowedHigh, MPFR_RNDU);
  return out;
}

// ⌊emax/4⌋: within 2^±range, a product of three values or a quotient stays normal and finite.
static int termRange(const IeeeFormat& format) { return format.maxExponent / 4; }

bool withinTermRange(double v, const IeeeFormat& format) {
  const int range = termRange(format);
  const double magnitude = std::fabs(v);
  return v == 0 || (magnitude >= std::ldexp(1.0, -range) && magnitude <= std::ldexp(1.0, range));
}

bool mayHaveUnderflowed(const Interval& term, const IeeeFormat& format) {
  if (mpfr_zero_p(lowerOf(term.v)) && mpfr_zero_p(upperOf(term.v))) return false;
  const Mpfi magnitude = boost::multiprecision::abs(term.v);
  return mpfr_cmp(upperOf(magnitude), upperOf(powerOfTwo(-termRange(format)))) < 0;
}

}  // namespace tc::props
