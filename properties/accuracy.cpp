#include "properties/accuracy.h"

#include <algorithm>
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

// The unit in the last place of the format at the exact value: at the larger magnitude the
// enclosure holds (so that the budget errs toward passing), and never below the subnormals'.
Mpfi ulpAt(const Interval& exact, const IeeeFormat& format) {
  const Mpfi magnitude = boost::multiprecision::abs(exact.v);
  long binade = format.minExponent;
  if (!mpfr_zero_p(upperOf(magnitude))) binade = std::max<long>(binade, mpfr_get_exp(upperOf(magnitude)) - 1);
  return powerOfTwo(binade - format.precision + 1);
}

// One endpoint as a point interval.
Mpfi endpoint(mpfr_srcptr end) {
  Mpfi out;
  mpfi_set_fr(out.backend().data(), end);
  return out;
}

// What the budget allows at the exact value: `ulps` ulps of it plus the upper end of `accumulated`.
Mpfi budgetAt(const Interval& exact, const IeeeFormat& format, double ulps, const Interval* accumulated) {
  Mpfi allowed = Mpfi(ulps) * ulpAt(exact, format);
  if (accumulated) allowed = allowed + accumulated->v;
  return allowed;
}

// Whether an infinity of this sign is the correctly rounded value of every real in `exact`.
bool overflowsTo(double infinity, const Interval& exact, const Mpfi& threshold) {
  return infinity > 0 ? mpfr_cmp(lowerOf(exact.v), upperOf(threshold)) >= 0
                      : mpfr_cmp(upperOf(exact.v), upperOf(Mpfi(-threshold))) <= 0;
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
  Mpfi stand(value);
  if (std::isinf(value)) {
    const Mpfi threshold = powerOfTwo(format.maxExponent + 1);
    if (overflowsTo(value, exact, threshold)) return {true, 0, 0};
    stand = value > 0 ? threshold : Mpfi(-threshold);
  }
  const Mpfi ulp = ulpAt(exact, format);
  // From the nearest real the enclosure holds, what the verdict turns on.
  const Mpfi distance = endpoint(lowerOf(boost::multiprecision::abs(exact.v - stand)));
  const Mpfi allowed = budgetAt(exact, format, ulpBudget, accumulated);
  const bool within = mpfr_cmp(lowerOf(distance), upperOf(allowed)) <= 0;
  const double ofBudget = mpfr_zero_p(upperOf(distance))  ? 0
                          : mpfr_zero_p(lowerOf(allowed)) ? unbounded
                                                          : mpfr_get_d(upperOf(Mpfi(distance / allowed)), MPFR_RNDU);
  return {within, mpfr_get_d(upperOf(Mpfi(distance / ulp)), MPFR_RNDU), ofBudget};
}

Interval widenedByBudget(const Interval& exact, const IeeeFormat& format, double ulps, const Interval* accumulated) {
  const Mpfi radius = endpoint(upperOf(budgetAt(exact, format, ulps, accumulated)));
  Mpfi plusOrMinus;
  mpfi_union(plusOrMinus.backend().data(), Mpfi(-radius).backend().data(), radius.backend().data());
  return Interval(exact.v + plusOrMinus);
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
