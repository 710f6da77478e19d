#pragma once
// What the properties compare: packs value by value under a comparison policy (== on exact
// carriers; bit patterns or numeric values on IEEE), errors by message, and tapes observationally.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/carriers/carrier.h"
#include "core/graph/node_program.h"
#include "core/io/listing.h"
#include "core/runtime/lowering.h"
#include "core/runtime/tape.h"

namespace tc::props {

//! How two values are judged equal (docs/semantics.md §3.6). `bits`: exact carriers with ==,
//! IEEE carriers by bit pattern, any two NaNs equal. `values`: numeric equality, so −0 equals +0
//! and any NaN equals any NaN; on exact carriers the same as `bits`.
//! `bitsAnyZeroSign` is `bits` for an engine whose profile leaves the sign of zero unspecified: ±0
//! compare equal, every other value by bit pattern.
enum class Policy { bits, values, bitsAnyZeroSign };

inline std::string_view policyName(Policy policy) {
  return policy == Policy::bits ? "bits" : policy == Policy::values ? "values" : "bits, any zero sign";
}

//! The policy named `name`, or nullopt.
inline std::optional<Policy> parsePolicy(std::string_view name) {
  if (name == "bits") return Policy::bits;
  if (name == "values") return Policy::values;
  return std::nullopt;
}

//! Whether `a` and `b` are equal under `policy`.
template <class T>
bool sameUnder(Policy policy, const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (policy == Policy::values) return a == b || (std::isnan(a) && std::isnan(b));
    if (policy == Policy::bitsAnyZeroSign && a == 0 && b == 0) return true;
  }
  return Carrier<T>::same(a, b);
}

//! Steps between two finite IEEE values along the ordered line of representable numbers.
template <class F>
std::uint64_t ulpDistance(F a, F b) {
  using Bits = std::conditional_t<sizeof(F) == 8, std::int64_t, std::int32_t>;
  auto ordered = [](F x) {
    Bits bits = std::bit_cast<Bits>(x);
    return static_cast<std::int64_t>(bits < 0 ? std::numeric_limits<Bits>::min() - bits : bits);
  };
  const std::int64_t x = ordered(a), y = ordered(b);  // unsigned difference: no overflow at the range's ends
  return x >= y ? static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y)
                : static_cast<std::uint64_t>(y) - static_cast<std::uint64_t>(x);
}

//! The classes of a difference between two values, from mildest to worst: a signed zero, a few
//! ulp (1, 4, 16, 64, 256, 1024: the smallest bound that holds), a NaN on one side only, and any
//! other (on exact carriers every difference is `other`).
inline constexpr std::string_view kDifferenceClasses[] = {"signed zero", "within 1 ulp",   "within 4 ulp",
                                                          "within 16 ulp", "within 64 ulp", "within 256 ulp",
                                                          "within 1024 ulp", "NaN",          "other"};

//! The index in kDifferenceClasses of the difference between `a` and `b` (which differ).
template <class T>
std::size_t differenceClass(const T& a, const T& b) {
  constexpr std::size_t other = std::size(kDifferenceClasses) - 1, nan = other - 1;
  if constexpr (std::is_floating_point_v<T>) {
    if (a == 0 && b == 0) return 0;
    if (std::isnan(a) != std::isnan(b)) return nan;
    if (!std::isfinite(a) || !std::isfinite(b)) return other;
    std::uint64_t ulps = ulpDistance(a, b), bound = 1;
    for (std::size_t k = 1; k < nan; ++k, bound *= 4)
      if (ulps <= bound) return k;
  }
  return other;
}

//! The two sides of a failed comparison at one position, formatted for a listing.
struct PositionDifference {
  std::size_t position;
  std::string left, right;
};

//! What a comparison of two per-position packs looked at: forward values or gradients. A survey
//! blames a forward difference on the op of its first differing node, a gradient difference on
//! the highest node feeding its last differing position.
enum class Quantity { forwardValues, gradients };

//! A property's verdict on one case: it holds, or what differed. A property that does not
//! apply to a case (an oracle at a kink, say) holds vacuously and names why in `skipped`; a case
//! using an op the engine does not support is not run and names the op in `unsupported`.
//! A failed comparison of two per-position packs also names both sides, the quantity, every
//! position where they differ and the worst class of difference (an index in kDifferenceClasses).
//! Every failure names the positions it is blamed on (`blamedPositions`), so that a listing and
//! show --dot can mark them: the differing positions of a comparison, or `blamed` (the node whose
//! identity fails, the input whose share of an inner product differs, the node an error names).
//! `notes` are lines a listing shows under a position: the quantities an oracle compared there.
//! `measures` are figures a property measured on the case, by name (accuracy: per op, the largest
//! ulp distance and share of the budget); a run keeps the largest of each.
struct Measure {
  double value = 0;    //!< the figure (accuracy: ulps from the exact value)
  double ofLimit = 0;  //!< the largest share of its limit it used (1 at the limit)
  void widen(const Measure& other) {
    value = std::max(value, other.value);
    ofLimit = std::max(ofLimit, other.ofLimit);
  }
};

struct Verdict {
  bool holds = true;
  std::string why;
  std::string skipped;
  std::string unsupported;
  std::string leftName, rightName;
  std::vector<PositionDifference> differences;
  Quantity quantity = Quantity::forwardValues;
  std::optional<std::size_t> differenceClass;
  std::set<std::size_t> blamed;
  std::map<std::size_t, std::vector<std::string>> notes;
  std::map<std::string, Measure> measures;
  //! Values the engine gave under a deviation its profile declares (accuracy, docs/semantics.md
  //! §3.6), judged by the declaration instead of a budget.
  std::size_t underDeviation = 0;
  //! The engine gave no result at all (it crashed, hung or threw: EngineFault); `why` says which.
  bool engineFault = false;
  static Verdict pass() { return {}; }
  static Verdict fail(std::string why, std::set<std::size_t> blamed = {}) {
    Verdict v;
    v.holds = false, v.why = std::move(why), v.blamed = std::move(blamed);
    return v;
  }
  static Verdict skip(std::string reason) {
    Verdict v;
    v.skipped = std::move(reason);
    return v;
  }
  static Verdict unsupportedOp(std::string op) {
    Verdict v;
    v.unsupported = std::move(op);
    return v;
  }
};

//! The positions a failed verdict blames: its differing positions and `blamed`.
std::set<std::size_t> blamedPositions(const Verdict& verdict);

//! What differs between two results and the positions it is blamed on; empty text when equal.
struct Mismatch {
  std::string text;
  std::set<std::size_t> positions;
  Mismatch(std::string text = {}, std::set<std::size_t> positions = {})
      : text(std::move(text)), positions(std::move(positions)) {}
  bool empty() const { return text.empty(); }
};

//! Passes when `mismatch` is empty, else fails with "what: text" blaming its positions.
inline Verdict verdictOf(std::string_view what, const Mismatch& mismatch) {
  if (mismatch.empty()) return Verdict::pass();
  return Verdict::fail(fmt::format("{}: {}", what, mismatch.text), mismatch.positions);
}

//! The positions an error message names ("node 5 (log): ..."), none when it names none.
inline std::set<std::size_t> positionsNamedBy(const Error& error) {
  if (auto p = nodeNamedBy(error.message)) return {*p};
  return {};
}

//! How many columns `text` takes on a terminal: its UTF-8 characters ("Jᵀ·seed" is 7).
inline std::size_t textColumns(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

//! A listing note "label  values" with the label padded to `width` columns, so that the notes
//! under a position line up.
inline std::string noteLine(std::string_view label, std::size_t width, std::string_view values) {
  const std::size_t columns = textColumns(label);
  return fmt::format("{}{}  {}", label, std::string(width > columns ? width - columns : 0, ' '), values);
}

//! "[1 -1/2]": a tensor's values for a failure message, abbreviated when large.
template <class T>
std::string bracketed(const Tensor<T>& t) {
  return "[" + abbreviatedValues(t) + "]";
}

//! Empty when equal under `policy`, else the first difference, after `where` when given:
//! "shape [2] vs [3]", "value 1: 2 vs 5/2" ("position 3 value 1: 2 vs 5/2").
template <class T>
std::string tensorDifference(const Tensor<T>& left, const Tensor<T>& right, Policy policy = Policy::bits,
                             const std::string& where = {}) {
  if (left.shape != right.shape)
    return fmt::format("{}{}shape {} vs {}", where, where.empty() ? "" : ": ", formatShape(left.shape),
                       formatShape(right.shape));
  for (std::size_t i = 0; i < left.size(); ++i)
    if (!sameUnder(policy, left[i], right[i]))
      return fmt::format("{}{}value {}: {} vs {}", where, where.empty() ? "" : " ", i, displayValue(left[i]),
                         displayValue(right[i]));
  return {};
}

//! Empty when equal under `policy`, else the first difference ("position 3 value 1: 2 vs 5/2").
template <class T>
std::string packDifference(const Pack<T>& left, const Pack<T>& right, Policy policy = Policy::bits) {
  if (left.size() != right.size()) return fmt::format("{} positions vs {}", left.size(), right.size());
  for (std::size_t p = 0; p < left.size(); ++p)
    if (std::string d = tensorDifference(left[p], right[p], policy, fmt::format("position {}", p)); !d.empty())
      return d;
  return {};
}

//! The positions where the packs differ under `policy` (shape or value; past the shorter's end too).
template <class T>
std::set<std::size_t> differingPositions(const Pack<T>& left, const Pack<T>& right, Policy policy = Policy::bits) {
  std::set<std::size_t> positions;
  for (std::size_t p = 0; p < std::max(left.size(), right.size()); ++p)
    if (p >= left.size() || p >= right.size() || !tensorDifference(left[p], right[p], policy).empty())
      positions.insert(p);
  return positions;
}

//! The first difference of two packs, blamed on every position where they differ.
template <class T>
Mismatch packMismatch(const Pack<T>& left, const Pack<T>& right, Policy policy = Policy::bits) {
  std::string first = packDifference(left, right, policy);
  if (first.empty()) return {};
  return {std::move(first), differingPositions(left, right, policy)};
}

//! The worst class (index in kDifferenceClasses) among the values that differ under `policy`.
template <class T>
std::size_t worstDifference(const Pack<T>& left, const Pack<T>& right, Policy policy) {
  constexpr std::size_t other = std::size(kDifferenceClasses) - 1;
  if (left.size() != right.size()) return other;
  std::size_t worst = 0;
  for (std::size_t p = 0; p < left.size(); ++p) {
    if (left[p].shape != right[p].shape) return other;
    for (std::size_t i = 0; i < left[p].size(); ++i)
      if (!sameUnder(policy, left[p][i], right[p][i])) worst = std::max(worst, differenceClass(left[p][i], right[p][i]));
  }
  return worst;
}

//! Holds when the packs are equal under `policy`; otherwise fails with "what: first difference"
//! and lists every differing position with both sides' values.
template <class T>
Verdict comparePacks(Quantity quantity, std::string_view what, std::string_view leftName, const Pack<T>& left,
                     std::string_view rightName, const Pack<T>& right, Policy policy = Policy::bits) {
  std::string first = packDifference(left, right, policy);
  if (first.empty()) return Verdict::pass();
  Verdict verdict = Verdict::fail(fmt::format("{} vs {}: {}", leftName, rightName, first));
  if (!what.empty()) verdict.why = fmt::format("{}: {}", what, verdict.why);
  verdict.leftName = leftName, verdict.rightName = rightName;
  verdict.quantity = quantity;
  verdict.differenceClass = worstDifference(left, right, policy);
  auto formatted = [](const Pack<T>& pack, std::size_t p) {
    if (p >= pack.size()) return std::string("(missing)");
    std::string text = formatShape(pack[p].shape);
    for (const T& v : pack[p].values) text += " " + displayValue(v);
    return text;
  };
  for (std::size_t p : differingPositions(left, right, policy))
    verdict.differences.push_back({p, formatted(left, p), formatted(right, p)});
  return verdict;
}

//! Empty when both succeeded with equal values (`compareValues` gives a Mismatch or its text), or
//! both failed with the same message; a difference of errors blames the positions they name.
template <class T, class F>
Mismatch resultDifference(const Result<T>& left, const Result<T>& right, F&& compareValues) {
  if (left && right) return Mismatch(compareValues(*left, *right));
  std::set<std::size_t> named = left ? std::set<std::size_t>{} : positionsNamedBy(left.error());
  if (!right) named.merge(positionsNamedBy(right.error()));
  if (!left && !right)
    return left.error().message == right.error().message
               ? Mismatch()
               : Mismatch(fmt::format("different errors: '{}' vs '{}'", left.error().message, right.error().message), named);
  if (!left) return {fmt::format("left failed ('{}'), right succeeded", left.error().message), named};
  return {fmt::format("left succeeded, right failed ('{}')", right.error().message), named};
}

//! Cotangents that tapes are probed with at a node of `shape`: zero, a varied pattern, IEEE
//! specials (on IEEE carriers), and one of the wrong shape.
template <class T>
Pack<T> probeCotangents(const Shape& shape, std::size_t salt);

//! Observational tape equivalence: same length; per node the same name, value, requiresGrad
//! and parents; closures with identical results or errors on the probe cotangents. A difference
//! is blamed on its tape node's position (a lowering's tape has one node per position).
template <class T>
Mismatch tapeDifference(const Tape<T>& left, const Tape<T>& right);

//! A lowering's context's first difference, else its tape's.
template <class T>
Mismatch loweringDifference(const TapeAndContext<T>& a, const TapeAndContext<T>& b);

}  // namespace tc::props
