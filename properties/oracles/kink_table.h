#pragma once
// The derivatives of the piecewise-linear ops — relu, abs, clamp, max and min — written a second
// time, apart from core/ops, as docs/semantics.md §2.3 and §2.5 state them: for an element's
// argument values and cotangent ct, the term each argument gets, away from the kinks, at every
// kink under each convention choice (by its name), and at a NaN under either NaN convention.
// kink_conventions holds every engine to this table, so a term that changes a convention in the op
// code fails there even though every layer shares the op code.
#include <array>
#include <optional>
#include <span>
#include <string_view>

#include "core/carriers/carrier.h"
#include "properties/oracles/op_table.h"

namespace tc::props::kinks {

//! One element of a piecewise-linear node: its argument values (`b` only for max and min), the
//! clamp bounds (only for clamp) and the element's cotangent.
template <class T>
struct Element {
  T a;
  T b;
  const T* lo = nullptr;
  const T* hi = nullptr;
  T ct;
};

//! The conventions in force, as the table names them: the op's kink choice and whether NaN
//! propagates.
struct Choices {
  std::string_view kink;
  bool nanPropagates = false;
};

//! One op of the table: its name, arity, its kink choices (the specification's first), where an
//! element sits at a kink, and the terms of its arguments (the second unused for unary ops).
template <class T>
struct Row {
  std::string_view op;
  std::size_t arity;
  std::array<std::string_view, 3> choices;
  bool (*atKink)(const Element<T>&);
  std::array<T, 2> (*terms)(const Element<T>&, const Choices&);

  std::span<const std::string_view> choiceNames() const {
    std::size_t n = 0;
    while (n < choices.size() && !choices[n].empty()) ++n;
    return {choices.data(), n};
  }
};

namespace detail {

// NaN by its definition, not by the ops' isNan: the table shares nothing with core/ops.
template <class T>
bool notANumber(const T& x) {
  return !(x == x);
}

template <class T>
std::array<T, 2> relu(const Element<T>& e, const Choices& choices) {
  const T zero = tc::zero<T>();
  if (notANumber(e.a)) return {choices.nanPropagates ? e.ct : zero, zero};
  if (e.a > zero) return {e.ct, zero};
  if (e.a < zero) return {zero, zero};
  return {choices.kink == "one" ? e.ct : zero, zero};
}

template <class T>
std::array<T, 2> abs(const Element<T>& e, const Choices& choices) {
  const T zero = tc::zero<T>();
  if (e.a > zero) return {e.ct, zero};
  if (e.a < zero) return {-e.ct, zero};
  if (choices.kink == "sign") return {e.ct * zero, zero};  // sgn(0) = sgn(NaN) = 0
  if (!notANumber(e.a)) return {choices.kink == "product" ? e.ct * zero : zero, zero};
  return {choices.nanPropagates ? e.ct * e.a : zero, zero};
}

template <class T>
std::array<T, 2> clamp(const Element<T>& e, const Choices& choices) {
  const T zero = tc::zero<T>();
  const T& lo = *e.lo;
  const T& hi = *e.hi;
  if (lo < e.a && e.a < hi) return {e.ct, zero};
  if (e.a == lo || e.a == hi) return {choices.kink == "pass" ? e.ct : zero, zero};
  return {zero, zero};
}

// max when `larger`, else min: the winner gets ct, the loser zero; a tie shares by the choice;
// an unordered pair is a tie unless NaN propagates, when both get ct.
template <class T, bool larger>
std::array<T, 2> select(const Element<T>& e, const Choices& choices) {
  const T zero = tc::zero<T>();
  const bool aWins = larger ? e.a > e.b : e.a < e.b;
  const bool bWins = larger ? e.b > e.a : e.b < e.a;
  if (aWins) return {e.ct, zero};
  if (bWins) return {zero, e.ct};
  if (!(e.a == e.b) && choices.nanPropagates) return {e.ct, e.ct};
  if (choices.kink == "first") return {e.ct, zero};
  if (choices.kink == "both") return {e.ct, e.ct};
  const T half = e.ct / Carrier<T>::fromInt(2);
  return {half, half};
}

template <class T>
bool atZero(const Element<T>& e) {
  return e.a == zero<T>();
}

template <class T>
bool atBound(const Element<T>& e) {
  return e.a == *e.lo || e.a == *e.hi;
}

template <class T>
bool tied(const Element<T>& e) {
  return e.a == e.b;
}

}  // namespace detail

//! The table: one row per op with kinks. An op whose kinks are not here fails kink_conventions.
template <class T>
inline const std::array<Row<T>, 5> kTable{{
    {"relu", 1, {"zero", "one"}, &detail::atZero<T>, &detail::relu<T>},
    {"abs", 1, {"zero", "product", "sign"}, &detail::atZero<T>, &detail::abs<T>},
    {"clamp", 1, {"pass", "block"}, &detail::atBound<T>, &detail::clamp<T>},
    {"max", 2, {"split", "first", "both"}, &detail::tied<T>, &detail::select<T, true>},
    {"min", 2, {"split", "first", "both"}, &detail::tied<T>, &detail::select<T, false>},
}};

//! The row of op `name`, or nullptr.
template <class T>
const Row<T>* rowOf(std::string_view name) {
  return rowNamed(kTable<T>, name);
}

}  // namespace tc::props::kinks
