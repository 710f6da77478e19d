#pragma once
// Dual numbers over an exact carrier: running an op's forward code on them gives the
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

//! Dual numbers have the ring, field and order of T, but no transcendental functions; `detach`
//! drops the tangent, exactly as detach's reverse program drops the cotangent.
template <class T>
struct Carrier<Dual<T>> {
  static constexpr std::string_view name = "dual";
  static constexpr Capabilities caps{true, Carrier<T>::caps.field, Carrier<T>::caps.ordered, false, false,
                                     Carrier<T>::caps.exact};
  static Dual<T> fromInt(std::int64_t n) { return {Carrier<T>::fromInt(n), Carrier<T>::fromInt(0)}; }
  static Dual<T> lift(const T& value) { return {value, Carrier<T>::fromInt(0)}; }
  static std::string format(const Dual<T>& x) {
    return fmt::format("{}+{}e", Carrier<T>::format(x.value), Carrier<T>::format(x.tangent));
  }
  static bool same(const Dual<T>& a, const Dual<T>& b) {
    return Carrier<T>::same(a.value, b.value) && Carrier<T>::same(a.tangent, b.tangent);
  }
  static Dual<T> detach(const Dual<T>& x) { return lift(x.value); }
};

}  // namespace tc
