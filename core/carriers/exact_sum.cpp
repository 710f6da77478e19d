#include "core/carriers/exact_sum.h"

namespace tc {

void ExactProductSum::clear() {
  for (auto& magnitude : words_) magnitude.fill(0);
  lowest_ = kWords;
}

void ExactProductSum::takeValue(Value& out) {
  const auto& positive = words_[0];
  const auto& negative = words_[1];
  out.digits.clear();
  out.negative = false;
  out.exponent = 0;
  if (lowest_ == kWords) return;  // nothing was added
  // The larger magnitude, by its highest differing word; the value is it minus the other.
  std::size_t top = kWords;
  while (top > lowest_ && positive[top - 1] == negative[top - 1]) --top;
  if (top == lowest_) {  // equal magnitudes: the sum is 0
    clear();
    return;
  }
  out.negative = negative[top - 1] > positive[top - 1];
  const auto& larger = out.negative ? negative : positive;
  const auto& smaller = out.negative ? positive : negative;
  std::uint64_t borrow = 0;
  for (std::size_t i = lowest_; i < top; ++i) {
    const std::uint64_t a = larger[i], b = smaller[i];
    const std::uint64_t difference = a - b - borrow;
    borrow = (a < b || (a == b && borrow)) ? 1 : 0;
    out.digits.push_back(difference);
  }
  assert(borrow == 0);
  std::size_t first = 0;  // drop zero digits at both ends
  while (out.digits[first] == 0) ++first;
  while (out.digits.back() == 0) out.digits.pop_back();
  out.digits.erase(out.digits.begin(), out.digits.begin() + static_cast<std::ptrdiff_t>(first));
  out.exponent = kLowestExponent + 64 * static_cast<long>(lowest_ + first);
  clear();
}

}  // namespace tc
