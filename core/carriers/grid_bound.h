#pragma once
// GridBound<T>: an IEEE value (T = double or float) together with a conservative proof that every
// evaluation order computes it exactly. core/spec/exactness.h runs the reference semantics on this
// carrier to decide whether a case lies in the exact domain (docs/semantics.md §1.12).
//
// A value stands for one expression of the spec (a forward value, a term, a local sum, a
// gradient). Besides the concrete T computed in the spec's order, it carries what holds in *every*
// order an engine may choose: sums reordered or regrouped (reversed, pairwise, interleaved,
// per-edge instead of local sums first), products reassociated (even across nodes) or multiplied
// out over sums, a division by 2^k done as a product with 2^-k. If every partial result of every
// such order is representable, no step rounds, so every order gives the exact value (and the same
// bits, up to the sign of an exact zero when products are multiplied out: docs/semantics.md §1.12).
//
// Why the rules are sound (a, b the operands, e the grid, M the bound, s = M/2^e the span):
// - Grid: leaves are multiples of 2^e; sums keep multiples of 2^min(ea, eb), products of
//   2^(ea + eb), in any order.
// - Bound: |a + b| over any subset of the summands in any order is at most Ma + Mb, so adding
//   bounds (never taking their maximum) covers every partial sum; |a·b| ≤ Ma·Mb.
// - Significand: a partial result k·2^e with |k| ≤ M/2^e < 2^p is representable. Every nonzero
//   value has s ≥ 1 (a nonzero multiple of 2^e is at least 2^e), so a sub-product of a regrouped
//   product, or a summand of a product multiplied out, has a span no larger than the whole: an
//   engine computing mse_loss's term as 2·(a−b)·ct/n instead of ((ct·2)·(a−b))/n forms
//   sub-products whose spans the whole term's span bounds. Checking the span of every result the
//   spec forms therefore covers every sub-result of every order.
// - Range: spans do not bound exponents: with x = 2^-100, y = 2^-60, z = 2^100 on float,
//   (x·z)·y is exact but x·y = 2^-160 underflows, and 2^100·2^100·2^-100 overflows if the two
//   large factors meet first. So a value also carries the lowest grid (`lowGrid`) and the largest
//   bound (`highBound`) of any sub-result in any order: a product's sub-products combine a
//   sub-product of each side, or take one side alone, hence min(La, Lb, La + Lb) and
//   max(Ha, Hb, Ha·Hb); a sum's are its operands' and its own bound.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/carriers/carrier.h"
#include "core/support/mutants.h"

namespace tc {

//! The first step at which some evaluation order may round a value, or none.
struct GridProblem {
  enum class Kind : std::uint8_t {
    none,         //!< exact in every order
    notFinite,    //!< a leaf (input, attribute, data, seed) is inf or NaN
    significand,  //!< `bits` significant bits needed, more than the carrier has
    underflow,    //!< some order forms a multiple of 2^`exponent` only, below the smallest subnormal
    overflow,     //!< some order may exceed the largest finite value
    division,     //!< the divisor (`divisor`) is not an exact nonzero power of two
  };
  Kind kind = Kind::none;
  //! The step: '+' sum, '-' difference, '*' product, '/' quotient, 'c' a constant of the op library.
  char step = 0;
  std::int32_t bits = 0;
  std::int32_t exponent = 0;
  double divisor = 0;
  explicit operator bool() const { return kind != Kind::none; }
};

namespace grid_detail {

//! The grid of an exact zero: it is a multiple of every power of two.
inline constexpr std::int32_t kZeroGrid = std::numeric_limits<std::int32_t>::max();
// Grids of inexact values keep growing; clamping keeps the arithmetic defined (any grid beyond
// ±2^30 is far outside every carrier's range, so it is flagged long before).
inline constexpr std::int32_t kGridLimit = std::int32_t{1} << 30;

inline std::int32_t addGrids(std::int32_t a, std::int32_t b) {
  if (a == kZeroGrid || b == kZeroGrid) return kZeroGrid;
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(std::int64_t{a} + b, -kGridLimit, kGridLimit));
}

// Bounds are long doubles rounded up, so they never fall below the exact bound. (They are exact
// whenever a value can pass: a passing bound is K·2^e with K < 2^53.) Error-free transformations
// tell when rounding to nearest fell short: Fast2Sum for sums, Dekker's product for products
// (std::fma on long double is a library call that saves and restores the floating-point
// environment, dozens of times slower).
inline long double roundedUp(long double r, long double error) {
  bool low = error > 0 || std::isnan(error);  // a NaN error (an overflow while splitting): assume low
  return low ? std::nextafter(r, std::numeric_limits<long double>::infinity()) : r;
}

inline long double sumUp(long double a, long double b) {
  long double r = a + b;
  if (!std::isfinite(r)) return r;
  long double big = std::max(a, b), small = std::min(a, b);
  return roundedUp(r, small - (r - big));
}

// Veltkamp's split of x into a high and a low half, each fitting half of long double's significand.
inline std::pair<long double, long double> split(long double x) {
  constexpr int half = (std::numeric_limits<long double>::digits + 1) / 2;
  const long double splitter = std::ldexp(1.0L, half) + 1;
  long double c = splitter * x;
  long double high = c - (c - x);
  return {high, x - high};
}

inline long double productUp(long double a, long double b) {
  long double r = a * b;
  if (!std::isfinite(r)) return r;
  auto [ah, al] = split(a);
  auto [bh, bl] = split(b);
  return roundedUp(r, al * bl - (((r - ah * bh) - al * bh) - ah * bl));
}

}  // namespace grid_detail

//! An IEEE value with what holds for it in every evaluation order (see the comment at the top of
//! core/carriers/grid_bound.h for the rules and why they are sound). T is double or float.
//! Comparisons look at the concrete value only, so relu, max, min, clamp and the kinks select as
//! the spec does on T; that value is the exact one as long as `exact()` holds.
template <class T>
struct GridBound {
  static_assert(std::is_floating_point_v<T> && std::numeric_limits<T>::is_iec559);
  //! Significant bits of T: 53 for double, 24 for float.
  static constexpr int kPrecision = std::numeric_limits<T>::digits;
  //! The exponent of T's smallest subnormal: −1074 for double, −149 for float.
  static constexpr int kLowestExponent = std::numeric_limits<T>::min_exponent - 1 - (kPrecision - 1);

  T value{};  //!< computed in the spec's order
  //! Every order gives a multiple of 2^grid (grid_detail::kZeroGrid: exactly zero in every order).
  std::int32_t grid = grid_detail::kZeroGrid;
  long double bound = 0;  //!< at least |every partial result| of this expression in every order
  //! The lowest grid of any sub-result in any order, products regrouped (kZeroGrid: none).
  std::int32_t lowGrid = grid_detail::kZeroGrid;
  //! The largest bound of any sub-result in any order, products regrouped.
  long double highBound = 0;
  GridProblem problem;  //!< the first step that may round, propagated through arithmetic

  //! No step of any order rounds this value or the values it came from.
  bool exact() const { return !problem; }
  //! Exactly zero in every order (a zero leaf, a sum of such, or a product with such a factor).
  bool isZero() const { return grid == grid_detail::kZeroGrid; }

  //! A finite T as a leaf: its own grid (lowest set bit) and bound (|v|); inf and NaN are flagged.
  static GridBound lift(T v) {
    GridBound r;
    r.value = v;
    if (!std::isfinite(v)) {
      r.grid = r.lowGrid = 0;
      r.bound = r.highBound = std::numeric_limits<long double>::infinity();
      r.problem = {GridProblem::Kind::notFinite, 'c'};
      return r;
    }
    if (v == 0) return r;
    int exponent = 0;
    T fraction = std::frexp(std::fabs(v), &exponent);  // |v| = fraction·2^exponent, fraction in [1/2, 1)
    auto significand = static_cast<std::uint64_t>(std::ldexp(fraction, kPrecision));
    r.grid = r.lowGrid = exponent - kPrecision + std::countr_zero(significand);
    r.bound = r.highBound = std::fabs(static_cast<long double>(v));
    return r;
  }

  //! The integer constant n of the op library (2 in square's term, an element count): exact when
  //! its significant bits fit T.
  static GridBound fromInt(std::int64_t n) {
    GridBound r;
    r.value = static_cast<T>(n);
    if (n == 0) return r;
    std::uint64_t magnitude = n < 0 ? std::uint64_t(0) - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
    r.grid = r.lowGrid = static_cast<std::int32_t>(std::countr_zero(magnitude));
    // Where long double has fewer than 64 bits the conversion may round down; never below |n|.
    long double bound = static_cast<long double>(magnitude);
    if (static_cast<std::uint64_t>(bound) < magnitude) bound = std::nextafter(bound, 2 * bound);
    r.bound = r.highBound = bound;
    return checked(r, 'c');
  }

  friend GridBound operator+(const GridBound& a, const GridBound& b) { return sum(a, b, a.value + b.value, '+'); }
  friend GridBound operator-(const GridBound& a, const GridBound& b) { return sum(a, b, a.value - b.value, '-'); }
  friend GridBound operator-(const GridBound& a) {
    GridBound r = a;
    r.value = -a.value;
    return r;
  }
  friend GridBound operator*(const GridBound& a, const GridBound& b) {
    GridBound r = product(a, b);
    r.value = a.value * b.value;
    return checked(r, '*');
  }
  //! Exact only for a divisor that is itself exact (so every order gives it the same value) and a
  //! nonzero power of two 2^k: then a/b is a·(±2^-k), a product with a leaf of grid −k. That leaf
  //! counts as a sub-result (an engine may multiply by 1/b), so 1/b must be representable too.
  friend GridBound operator/(const GridBound& a, const GridBound& b) {
    GridBound r = a;
    if (b.exact() && !b.isZero() && isPowerOfTwo(b.value)) r = product(a, powerOfTwo(-std::ilogb(b.value)));
    else if (!r.problem) r.problem = b.exact() ? GridProblem{GridProblem::Kind::division, '/', 0, 0, static_cast<double>(b.value)} : b.problem;
    r.value = a.value / b.value;
    return checked(r, '/');
  }
  friend bool operator==(const GridBound& a, const GridBound& b) { return a.value == b.value; }
  friend bool operator<(const GridBound& a, const GridBound& b) { return a.value < b.value; }
  friend bool operator>(const GridBound& a, const GridBound& b) { return a.value > b.value; }
  friend bool operator<=(const GridBound& a, const GridBound& b) { return a.value <= b.value; }
  friend bool operator>=(const GridBound& a, const GridBound& b) { return a.value >= b.value; }

 private:
  static bool isPowerOfTwo(T v) {
    int exponent = 0;
    return std::isfinite(v) && v != 0 && std::frexp(std::fabs(v), &exponent) == T(0.5);
  }

  // The leaf 2^k (only its grid and bound matter: the caller computes the value).
  static GridBound powerOfTwo(int k) {
    GridBound r;
    r.grid = r.lowGrid = k;
    r.bound = r.highBound = std::ldexp(1.0L, k);
    return r;
  }

  static GridBound sum(const GridBound& a, const GridBound& b, T value, char step) {
    GridBound r;
    r.value = value;
    r.grid = std::min(a.grid, b.grid);
    r.bound = TC_MUTANT(exact_sum_bound_takes_max) ? std::max(a.bound, b.bound) : grid_detail::sumUp(a.bound, b.bound);
    r.lowGrid = std::min(a.lowGrid, b.lowGrid);
    r.highBound = std::max({a.highBound, b.highBound, r.bound});
    r.problem = a.problem ? a.problem : b.problem;
    return checked(r, step);
  }

  // Grid, bound and sub-product extremes of a·b; the caller sets the value and checks.
  static GridBound product(const GridBound& a, const GridBound& b) {
    GridBound r;
    bool zero = a.isZero() || b.isZero();
    r.grid = zero ? grid_detail::kZeroGrid : grid_detail::addGrids(a.grid, b.grid);
    r.bound = zero ? 0 : grid_detail::productUp(a.bound, b.bound);
    r.lowGrid = std::min({a.lowGrid, b.lowGrid, grid_detail::addGrids(a.lowGrid, b.lowGrid)});
    r.highBound = std::max({a.highBound, b.highBound, grid_detail::productUp(a.highBound, b.highBound)});
    r.problem = a.problem ? a.problem : b.problem;
    return r;
  }

  // Flags `r` (the result of `step`) when some order may round it: beyond T's range, below its
  // smallest subnormal, or wider than its significand. A flagged operand's problem comes first.
  static GridBound checked(GridBound r, char step) {
    if (r.problem) return r;
    if (!(r.highBound <= static_cast<long double>(std::numeric_limits<T>::max())))
      r.problem = {GridProblem::Kind::overflow, step};
    else if (r.lowGrid != grid_detail::kZeroGrid && r.lowGrid < kLowestExponent)
      r.problem = {GridProblem::Kind::underflow, step, 0, r.lowGrid};
    else if (!r.isZero() && r.bound >= firstTooWide(r.grid))
      r.problem = {GridProblem::Kind::significand, step, std::ilogb(r.bound) - r.grid + 1};
    return r;
  }

  // 2^(grid + kPrecision): the smallest bound whose multiples of 2^grid no longer fit the
  // significand. Only grids of T's range reach here (the range checks come first), so a table
  // serves them: std::ldexp and std::ilogb on long double are library calls that would dominate
  // the checker's time.
  static long double firstTooWide(std::int32_t grid) {
    constexpr int kHighestExponent = std::numeric_limits<T>::max_exponent - 1;
    static const std::vector<long double> table = [] {
      std::vector<long double> powers{std::ldexp(1.0L, kLowestExponent + kPrecision)};
      for (int e = kLowestExponent + 1; e <= kHighestExponent; ++e) powers.push_back(2 * powers.back());
      return powers;
    }();
    assert(grid >= kLowestExponent && grid <= kHighestExponent);
    return table[static_cast<std::size_t>(grid - kLowestExponent)];
  }
};

//! The reason a flagged value is not exact, as one phrase ("the product needs 60 significant
//! bits, double has 53"); `problem` must be set.
template <class T>
std::string describeGridProblem(const GridProblem& problem) {
  auto stepName = [&]() -> std::string_view {
    switch (problem.step) {
      case '+': return "sum";
      case '-': return "difference";
      case '*': return "product";
      case '/': return "quotient";
      default: return "constant";
    }
  };
  const std::string_view carrier = Carrier<T>::name;
  switch (problem.kind) {
    case GridProblem::Kind::notFinite: return "the value is not finite";
    case GridProblem::Kind::significand:
      return fmt::format("the {} needs {} significant bits, {} has {}", stepName(), problem.bits, carrier,
                         GridBound<T>::kPrecision);
    case GridProblem::Kind::underflow:
      return fmt::format("the {} needs bits down to 2^{} in some order, below {}'s smallest subnormal 2^{}", stepName(),
                         problem.exponent, carrier, GridBound<T>::kLowestExponent);
    case GridProblem::Kind::overflow:
      return fmt::format("the {} may exceed {}'s largest finite value in some order", stepName(), carrier);
    case GridProblem::Kind::division:
      return fmt::format("division by {} is not exact", Carrier<T>::format(static_cast<T>(problem.divisor)));
    case GridProblem::Kind::none: break;
  }
  return "exact";
}

//! GridBound has the ring, field and order of T but no transcendental functions, so the ops that
//! need them are not defined on it (they are outside the exact domain). It has no storage
//! equality and, like T, no domain errors: a division by zero is flagged, not refused.
template <class T>
struct Carrier<GridBound<T>> {
  static constexpr std::string_view name = "grid-bound";
  static constexpr Capabilities caps{true, true, true, false, false, false};
  static GridBound<T> fromInt(std::int64_t n) { return GridBound<T>::fromInt(n); }
  static GridBound<T> lift(T value) { return GridBound<T>::lift(value); }
  static std::string format(const GridBound<T>& x) {
    if (!x.exact()) return fmt::format("{} (inexact: {})", Carrier<T>::format(x.value), describeGridProblem<T>(x.problem));
    if (x.isZero()) return fmt::format("{} (zero)", Carrier<T>::format(x.value));
    return fmt::format("{} (grid 2^{}, bound {})", Carrier<T>::format(x.value), x.grid, static_cast<double>(x.bound));
  }
  static bool same(const GridBound<T>& a, const GridBound<T>& b) {
    return Carrier<T>::same(a.value, b.value) && a.grid == b.grid && a.bound == b.bound && a.exact() == b.exact();
  }
  static GridBound<T> detach(const GridBound<T>& x) { return x; }
};

}  // namespace tc
