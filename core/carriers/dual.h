#pragma once
// Dual numbers over an exact or interval carrier: running an op's forward code on them gives the
// Jacobian-vector product, a forward-mode oracle that shares no code with the reverse terms.
#include <fmt/format.h>

#include "core/carriers/carrier.h"

namespace tc {

//! value + tangent·ε with ε² = 0. Comparisons look at the value only.
template <class T>
struct Dual {
  T value;
  T tangent;

  friend Dual operator+(const Dual& a, const Dual& b) { return {a.value + b.value, a.tangent + b.tangent}; }
  friend Dual operator-(const Dual& a, const Dual& b) { return {a.value - b.value, a.tangent - b.tangent}; }
  friend Dual operator-(const Dual& a) { return {-a.value, -a.tangent}; }
  friend Dual operator*(const Dual& a, const Dual& b) {
    return {a.value * b.value, a.tangent * b.value + a.value * b.tangent};
  }
  friend Dual operator/(const Dual& a, const Dual& b) {
    return {a.value / b.value, (a.tangent * b.value - a.value * b.tangent) / (b.value * b.value)};
  }
  friend bool operator==(const Dual& a, const Dual& b) { return a.value == b.value; }
  friend bool operator<(const Dual& a, const Dual& b) { return a.value < b.value; }
  friend bool operator>(const Dual& a, const Dual& b) { return a.value > b.value; }
  friend bool operator<=(const Dual& a, const Dual& b) { return a.value <= b.value; }
  friend bool operator>=(const Dual& a, const Dual& b) { return a.value >= b.value; }
};

//! Dual numbers have the ring, field and order of T, and its transcendental functions with the
//! elementary derivatives of calculus (written here, apart from the ops' reverse terms); `detach`
//! drops the tangent, exactly as detach's reverse program drops the cotangent.
template <class T>
struct Carrier<Dual<T>> {
  using C = Carrier<T>;
  static constexpr bool kTranscendental = C::caps.transcendental;
  static constexpr Capabilities caps{true,  C::caps.field, C::caps.ordered, kTranscendental, false,
                                     C::caps.exact, C::caps.enclosure};
  static Dual<T> fromInt(std::int64_t n) { return {C::fromInt(n), C::fromInt(0)}; }
  static Dual<T> lift(const T& value) { return {value, C::fromInt(0)}; }
  static std::string format(const Dual<T>& x) { return fmt::format("{}+{}e", C::format(x.value), C::format(x.tangent)); }
  static bool same(const Dual<T>& a, const Dual<T>& b) { return C::same(a.value, b.value) && C::same(a.tangent, b.tangent); }
  static Dual<T> detach(const Dual<T>& x) { return lift(x.value); }
  static bool certainlyNonzero(const Dual<T>& x) { return tc::certainlyNonzero(x.value); }
  static bool certainlyPositive(const Dual<T>& x) { return tc::certainlyPositive(x.value); }

  static Dual<T> exp(const Dual<T>& x) requires kTranscendental {
    T e = C::exp(x.value);
    return {e, x.tangent * e};
  }
  static Dual<T> log(const Dual<T>& x) requires kTranscendental { return {C::log(x.value), x.tangent / x.value}; }
  static Dual<T> log1p(const Dual<T>& x) requires kTranscendental {
    return {C::log1p(x.value), x.tangent / (C::fromInt(1) + x.value)};
  }
  static Dual<T> sqrt(const Dual<T>& x) requires kTranscendental {
    T r = C::sqrt(x.value);
    return {r, x.tangent / (C::fromInt(2) * r)};
  }
  static Dual<T> tanh(const Dual<T>& x) requires kTranscendental {
    T t = C::tanh(x.value);
    return {t, x.tangent * (C::fromInt(1) - t * t)};
  }
  static Dual<T> sin(const Dual<T>& x) requires kTranscendental { return {C::sin(x.value), x.tangent * C::cos(x.value)}; }
  static Dual<T> cos(const Dual<T>& x) requires kTranscendental { return {C::cos(x.value), -(x.tangent * C::sin(x.value))}; }
  //! |x| with the tangent's sign following x's; at x = 0, a kink, the tangent 0.
  static Dual<T> abs(const Dual<T>& x) requires kTranscendental {
    const T zero = C::fromInt(0);
    return {C::abs(x.value), x.value > zero ? x.tangent : (x.value < zero ? -x.tangent : zero)};
  }
};

}  // namespace tc
