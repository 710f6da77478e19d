#pragma once
// Each op's domain written a second time, apart from the ops' validation in core/ops, as
// docs/semantics.md §1 states it: where an op refuses its argument values. An op without a row
// is total: it accepts every value on every carrier. domain_errors holds every engine to this
// table, so a check that lets NaN through, a guard that forgets its carrier condition, or a new
// check nobody stated fails there although every layer shares the validation code.
#include <array>
#include <limits>
#include <vector>
#include <optional>
#include <span>
#include <string_view>

#include "core/carriers/carrier.h"
#include "core/tensor/tensor.h"
#include "properties/oracles/op_table.h"

namespace tc::props::domains {

//! One op's domain: the op, which argument it constrains, what the argument's elements must be
//! (for a message), the carriers it applies to (exact ones, or all), the predicate on one
//! element, and the reason an engine's error gives for a refusal, as docs/semantics.md §1.10's
//! table words it (the whole message is "node P (op): " and the reason).
template <class T>
struct Row {
  std::string_view op;
  std::size_t argument;
  std::string_view needs;
  bool exactCarriersOnly;
  bool (*inside)(const T&);
  std::string_view reason;
};

namespace detail {

// On intervals, "x ≠ 0" and "x > 0" hold of every point: an interval holding 0 is outside.
template <class T>
bool nonzero(const T& x) {
  return certainlyNonzero(x);
}

// NaN compares false with everything, so it is outside. (Unordered carriers have no log.)
template <class T>
bool positive(const T& x) {
  if constexpr (Carrier<T>::caps.ordered) return certainlyPositive(x);
  else return true;
}

}  // namespace detail

//! The table. div and inv divide by their argument's values, which exact carriers (rational,
//! modp, interval) refuse at 0 (IEEE carriers give ±inf or NaN); log needs positive values on
//! every carrier it exists on (IEEE, interval); sqrt needs them on the interval carrier (its
//! term divides by sqrt x; IEEE carriers give NaN and inf).
template <class T>
inline const std::array<Row<T>, 4> kTable{{
    {"div", 1, "b ≠ 0", true, &detail::nonzero<T>, "divisor contains 0"},
    {"inv", 0, "x ≠ 0", true, &detail::nonzero<T>, "input contains 0"},
    {"log", 0, "x > 0 (not NaN)", false, &detail::positive<T>, "input contains values <= 0 or NaN"},
    {"sqrt", 0, "x > 0", true, &detail::positive<T>, "input contains values <= 0"},
}};

//! The first element of `values` outside `row`'s domain on carrier T, or nullopt (also when the
//! row does not apply to T).
template <class T>
std::optional<std::size_t> firstOutside(const Row<T>& row, const Tensor<T>& values) {
  if (row.exactCarriersOnly && !Carrier<T>::caps.exact) return std::nullopt;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!row.inside(values[i])) return i;
  return std::nullopt;
}

//! The values an argument is probed at, one at a time, on carrier T: where domains end (0, and on
//! IEEE carriers −0, NaN, ±inf and the smallest subnormal; on intervals [−1, 1] and [0, 1], which
//! hold 0 among other points) and just inside them (±1).
template <class T>
std::vector<T> boundaryValues() {
  std::vector<T> values{zero<T>(), one<T>(), -one<T>()};
  if constexpr (Carrier<T>::caps.enclosure)
    values.insert(values.end(), {Carrier<T>::parse("[-1, 1]").value(), Carrier<T>::parse("[0, 1]").value()});
  if constexpr (std::numeric_limits<T>::has_quiet_NaN)
    values.insert(values.end(), {-T(0), std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                                 -std::numeric_limits<T>::infinity(), std::numeric_limits<T>::denorm_min()});
  return values;
}

//! The row of op `name`, or nullptr (a total op).
template <class T>
const Row<T>* rowOf(std::string_view name) {
  return rowNamed(kTable<T>, name);
}

}  // namespace tc::props::domains
