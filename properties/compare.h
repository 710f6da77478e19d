#pragma once
// What the properties compare: packs value by value (== on exact carriers, bit patterns on IEEE),
// errors by message, and tapes observationally.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/carriers/carrier.h"
#include "core/runtime/tape.h"

namespace tc::props {

//! The two sides of a failed comparison at one position, formatted for a listing.
struct PositionDifference {
  std::size_t position;
  std::string left, right;
};

//! A property's verdict on one case: it holds, or what differed. A property that does not
//! apply to a case (an oracle at a kink, say) holds vacuously and names why in `skipped`.
//! A failed comparison of two per-position packs also names both sides and every position
//! where they differ.
struct Verdict {
  bool holds = true;
  std::string why;
  std::string skipped;
  std::string leftName, rightName;
  std::vector<PositionDifference> differences;
  static Verdict pass() { return {}; }
  static Verdict fail(std::string why) { return {false, std::move(why), {}, {}, {}, {}}; }
  static Verdict skip(std::string reason) { return {true, {}, std::move(reason), {}, {}, {}}; }
};

//! Empty when equal, else the first difference ("position 3 value 1: 2 vs 5/2").
template <class T>
std::string packDifference(const Pack<T>& left, const Pack<T>& right) {
  if (left.size() != right.size()) return fmt::format("{} positions vs {}", left.size(), right.size());
  for (std::size_t p = 0; p < left.size(); ++p) {
    if (left[p].shape != right[p].shape)
      return fmt::format("position {}: shape {} vs {}", p, formatShape(left[p].shape), formatShape(right[p].shape));
    for (std::size_t i = 0; i < left[p].size(); ++i)
      if (!Carrier<T>::same(left[p][i], right[p][i]))
        return fmt::format("position {} value {}: {} vs {}", p, i, Carrier<T>::format(left[p][i]),
                           Carrier<T>::format(right[p][i]));
  }
  return {};
}

//! Holds when the packs are equal; otherwise fails with "what: first difference" and lists
//! every differing position with both sides' values.
template <class T>
Verdict comparePacks(std::string_view what, std::string_view leftName, const Pack<T>& left, std::string_view rightName,
                     const Pack<T>& right) {
  std::string first = packDifference(left, right);
  if (first.empty()) return Verdict::pass();
  Verdict verdict = Verdict::fail(fmt::format("{} vs {}: {}", leftName, rightName, first));
  if (!what.empty()) verdict.why = fmt::format("{}: {}", what, verdict.why);
  verdict.leftName = leftName, verdict.rightName = rightName;
  auto formatted = [](const Pack<T>& pack, std::size_t p) {
    if (p >= pack.size()) return std::string("(missing)");
    std::string text = formatShape(pack[p].shape);
    for (const T& v : pack[p].values) text += " " + Carrier<T>::format(v);
    return text;
  };
  for (std::size_t p = 0; p < std::max(left.size(), right.size()); ++p)
    if (p >= left.size() || p >= right.size() || !packDifference(Pack<T>{left[p]}, Pack<T>{right[p]}).empty())
      verdict.differences.push_back({p, formatted(left, p), formatted(right, p)});
  return verdict;
}

//! Both succeeded with equal values, or both failed with the same message.
template <class T, class F>
std::string resultDifference(const Result<T>& left, const Result<T>& right, F&& compareValues) {
  if (!left && !right)
    return left.error().message == right.error().message
               ? std::string()
               : fmt::format("different errors: '{}' vs '{}'", left.error().message, right.error().message);
  if (!left) return fmt::format("left failed ('{}'), right succeeded", left.error().message);
  if (!right) return fmt::format("left succeeded, right failed ('{}')", right.error().message);
  return compareValues(*left, *right);
}

//! Cotangents that tapes are probed with at a node of `shape`: zero, a varied pattern, IEEE
//! specials (on IEEE carriers), and one of the wrong shape.
template <class T>
Pack<T> probeCotangents(const Shape& shape, std::size_t salt);

//! Observational tape equivalence: same length; per node the same name, value, requiresGrad
//! and parents; closures with identical results or errors on the probe cotangents.
template <class T>
std::string tapeDifference(const Tape<T>& left, const Tape<T>& right);

}  // namespace tc::props
