#pragma once
#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

#include "core/support/result.h"

namespace tc {

//! The highest rank a shape may have.
inline constexpr std::size_t kMaxRank = 8;

//! Dimensions, outermost first; `{}` is a scalar. Every dimension is at least 1 and at most
//! kMaxElements. Held inline and trivially copyable, so tensors copy and move their shapes
//! without allocating.
class Shape {
 public:
  using Dim = std::uint32_t;
  using value_type = Dim;
  using iterator = Dim*;
  using const_iterator = const Dim*;

  Shape() = default;
  Shape(std::initializer_list<std::size_t> dims) : Shape(dims.begin(), dims.end()) {}
  template <class It>
  Shape(It first, It last) {
    for (; first != last; ++first) push_back(*first);
  }

  std::size_t size() const { return rank_; }
  bool empty() const { return rank_ == 0; }
  std::size_t operator[](std::size_t i) const { return dims_[i]; }
  Dim& operator[](std::size_t i) { return dims_[i]; }
  std::size_t back() const { return dims_[rank_ - 1]; }
  const_iterator begin() const { return dims_.data(); }
  const_iterator end() const { return dims_.data() + rank_; }
  iterator begin() { return dims_.data(); }
  iterator end() { return dims_.data() + rank_; }
  //! Appends a dimension; callers check the rank and the dimension's size first.
  void push_back(std::size_t dim) {
    assert(rank_ < kMaxRank && "shape rank exceeds kMaxRank");
    assert(dim <= kMaxDim && "shape dimension exceeds kMaxElements");
    dims_[rank_++] = static_cast<Dim>(dim);
  }
  void erase(const_iterator at) {
    std::copy(at + 1, static_cast<const_iterator>(end()), begin() + (at - begin()));
    --rank_;
  }
  friend bool operator==(const Shape& a, const Shape& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

 private:
  static constexpr std::size_t kMaxDim = std::size_t{1} << 22;  // kMaxElements
  std::array<Dim, kMaxRank> dims_{};
  std::uint32_t rank_ = 0;
};

//! The largest element count of one tensor, and of all positions of a graph together: bounds
//! that keep a small hostile file from exhausting memory.
inline constexpr std::size_t kMaxElements = std::size_t{1} << 22;
inline constexpr std::size_t kMaxGraphElements = std::size_t{1} << 24;
static_assert(kMaxElements <= UINT32_MAX, "a dimension must fit a Shape::Dim");

//! Product of the dimensions of a shape already known to be valid.
inline std::size_t elementCount(const Shape& shape) {
  std::size_t count = 1;
  for (std::size_t dim : shape) count *= dim;
  return count;
}

//! Checks that every dimension is at least 1 and the element count stays within kMaxElements.
Result<std::size_t> checkShape(const Shape& shape);
//! The same check on dimensions not yet in a Shape (they may be too large for one).
Result<std::size_t> checkDimensions(std::span<const std::size_t> dims);

//! "[2, 3]"; "[]" for a scalar.
std::string formatShape(const Shape& shape);

}  // namespace tc
