#pragma once
// Arithmetic forwarded to a wrapped number, for carriers that wrap another type to change what
// its comparisons mean (RationalNoEq, Interval).

namespace tc {

//! Gives `Self` (a struct holding its number in `v`, constructible from it) the four operations
//! and negation of that number. Requires `Self(decltype(v))` to be explicit or implicit.
template <class Self>
struct WrappedArithmetic {
  friend Self operator+(const Self& a, const Self& b) { return Self(a.v + b.v); }
  friend Self operator-(const Self& a, const Self& b) { return Self(a.v - b.v); }
  friend Self operator*(const Self& a, const Self& b) { return Self(a.v * b.v); }
  friend Self operator/(const Self& a, const Self& b) { return Self(a.v / b.v); }
  friend Self operator-(const Self& a) { return Self(-a.v); }
};

}  // namespace tc
