#pragma once
// Exact rationals on GMP. Expression templates stay off: with them `auto` would hold
// dangling expressions.
#include <boost/multiprecision/gmp.hpp>

#include "core/carriers/wrapped_arithmetic.h"

namespace tc {

//! An exact rational number; the carrier with storage equality that properties compare with `==`.
using Rational = boost::multiprecision::number<boost::multiprecision::gmp_rational,
                                               boost::multiprecision::et_off>;
//! An arbitrary-precision integer (numerators, denominators, ModP reduction).
using Integer = boost::multiprecision::number<boost::multiprecision::gmp_int,
                                              boost::multiprecision::et_off>;

//! n/d built safely. Boost 1.74 silently mis-builds `Rational(1, -1)` from two ints and raises
//! SIGFPE on a zero denominator, so callers check `d != 0` and we divide two rationals.
inline Rational makeRational(const Integer& n, const Integer& d) {
  return Rational(n) / Rational(d);
}

//! An exact rational whose carrier declares no storage equality, so that the dense fallback
//! paths run while results still compare exactly.
struct RationalNoEq : WrappedArithmetic<RationalNoEq> {
  Rational v;

  RationalNoEq() = default;
  explicit RationalNoEq(Rational value) : v(std::move(value)) {}

  friend bool operator==(const RationalNoEq& a, const RationalNoEq& b) { return a.v == b.v; }
  friend bool operator<(const RationalNoEq& a, const RationalNoEq& b) { return a.v < b.v; }
  friend bool operator>(const RationalNoEq& a, const RationalNoEq& b) { return a.v > b.v; }
  friend bool operator<=(const RationalNoEq& a, const RationalNoEq& b) { return a.v <= b.v; }
  friend bool operator>=(const RationalNoEq& a, const RationalNoEq& b) { return a.v >= b.v; }
};

}  // namespace tc
