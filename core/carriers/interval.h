#pragma once
// Intervals on MPFI (Boost.Multiprecision's mpfi_float): every operation, transcendental ones
// included, returns an interval that contains the exact real result of the same operation on
// any reals inside its arguments. Expression templates stay off, as for the rationals.
#include <boost/multiprecision/mpfi.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "core/carriers/exact_sum.h"
#include "core/carriers/rational.h"
#include "core/carriers/wrapped_arithmetic.h"
#include "core/support/result.h"

namespace tc {

//! An MPFI interval of 257-bit endpoints (77 decimal digits, Boost's precision parameter).
using Mpfi = boost::multiprecision::number<boost::multiprecision::mpfi_float_backend<77>,
                                           boost::multiprecision::et_off>;

//! A closed interval [lo, hi] of reals enclosing the exact result of the operations that made
//! it: MPFI rounds each endpoint outward. `==` is storage equality, the same two endpoints (the
//! same operations in the same order give the same interval). The comparisons order intervals by
//! lower endpoint, then upper endpoint: the reals' order wherever two intervals are disjoint,
//! and where they overlap a fixed choice that every layer makes alike (docs/semantics.md §1.13).
//! Requires endpoints that are not NaN: the interval carrier refuses what would make one.
struct Interval : WrappedArithmetic<Interval> {
  Mpfi v;

  Interval() = default;
  explicit Interval(Mpfi value) : v(std::move(value)) {}

  friend bool operator==(const Interval& a, const Interval& b) { return compareIntervals(a, b) == 0; }
  friend bool operator<(const Interval& a, const Interval& b) { return compareIntervals(a, b) < 0; }
  friend bool operator>(const Interval& a, const Interval& b) { return compareIntervals(a, b) > 0; }
  friend bool operator<=(const Interval& a, const Interval& b) { return compareIntervals(a, b) <= 0; }
  friend bool operator>=(const Interval& a, const Interval& b) { return compareIntervals(a, b) >= 0; }

  //! Lower endpoints compared first, then upper ones; negative, zero or positive.
  static int compareIntervals(const Interval& a, const Interval& b);
};

//! The interval of all reals between `lo` and `hi`, each rounded outward to the endpoints'
//! precision (exact when both are representable); requires lo <= hi.
Interval enclose(const Rational& lo, const Rational& hi);

//! The largest binary exponent an interval's endpoints may reach (about 10^±9000): the reader
//! refuses larger values, and a node that makes one fails as at the exact carriers' ceiling, so
//! that every value stays one the file format reads back (docs/semantics.md §1.13).
inline constexpr long kMaxIntervalExponent = 30000;

//! Whether both endpoints are finite with binary exponents within ±kMaxIntervalExponent.
bool withinRange(const Interval& x);

//! The larger magnitude of the endpoints' binary exponents (0 for [0, 0]; 1 for 1).
long exponentMagnitude(const Interval& x);

//! enclose(lo, hi), or an error naming `text` when it lies outside the range.
Result<Interval> encloseInRange(const Rational& lo, const Rational& hi, std::string_view text);

//! Whether the two intervals share a point: two enclosures of one real number always do.
bool overlap(const Interval& a, const Interval& b);

//! Whether 0 lies in x, and whether every point of x is positive.
bool containsZero(const Interval& x);
bool certainlyPositive(const Interval& x);

//! hi − lo divided by the larger endpoint's magnitude (0 for [0, 0]), rounded up, as a double.
double relativeWidth(const Interval& x);

//! The double a point interval holds exactly, or nothing (an interval that is not a point, or a
//! point no double holds).
std::optional<double> exactDouble(const Interval& x);

//! The exact rational a point holds, or nothing for an interval that is not a point: what a
//! check independent of exactDouble compares a double's rational with.
std::optional<Rational> pointValue(const Interval& x);

//! The narrowest interval around an exact sum of products of doubles (a point when 257 bits hold
//! it).
Interval encloseExactSum(const ExactProductSum::Value& sum);

//! Whether the exact rational q lies in x.
bool contains(const Interval& x, const Rational& q);

//! Exact text "[lo, hi]": each endpoint a short exact fraction or integer where it has one, else
//! an exact hex float ("0x1.5555…p-2"); the file format reads it back to the same interval.
std::string formatInterval(const Interval& x);

//! For people: a point's value, or the endpoints to 17 significant digits rounded outward (so
//! the text still encloses the value).
std::string displayInterval(const Interval& x);

//! Reads "[lo, hi]" (two finite literals, lo <= hi) or one finite literal (a point, enclosed).
Result<Interval> parseInterval(std::string_view text);

}  // namespace tc
