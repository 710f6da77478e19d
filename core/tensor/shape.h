#pragma once
#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <initializer_list>
#include <string>

#include "core/support/result.h"

namespace tc {

//! The highest rank a shape may have.
inline constexpr std::size_t kMaxRank = 8;

//! Dimensions, outermost first; `{}` is a scalar. Every dimension is at least 1. Held inline
//! and trivially copyable, so tensors copy and move their shapes without allocating.
class Shape {
 public:
  using value_type = std::size_t;
  using iterator = std::size_t*;
  using const_iterator = const std::size_t*;

  Shape() = default;
  Shape(std::initializer_list<std::size_t> dims) : Shape(dims.begin(), dims.end()) {}
  template <class It>
  Shape(It first, It last) {
    for (; first != last; ++first) push_back(*first);
  }

  std::size_t size() const { return rank_; }
  bool empty() const { return rank_ == 0; }
  std::size_t operator[](std::size_t i) const { return dims_[i]; }
  std::size_t& operator[](std::size_t i) { return dims_[i]; }
  std::size_t back() const { return dims_[rank_ - 1]; }
  const_iterator begin() const { return dims_.data(); }
  const_iterator end() const { return dims_.data() + rank_; }
  iterator begin() { return dims_.data(); }
  iterator end() { return dims_.data() + rank_; }
  //! Appends a dimension; callers check the rank first (checkRank).
  void push_back(std::size_t dim) {
    assert(rank_ < kMaxRank && "shape rank exceeds kMaxRank");
    dims_[rank_++] = dim;
  }
  void erase(const_iterator at) {
    std::copy(at + 1, static_cast<const_iterator>(end()), begin() + (at - begin()));
    --rank_;
  }
  friend bool operator==(const Shape& a, const Shape& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

 private:
  std::array<std::size_t, kMaxRank> dims_{};
  std::size_t rank_ = 0;
};

//! The largest element count of one tensor, and of all positions of a graph together: bounds
//! that keep a small hostile file from exhausting memory.
inline constexpr std::size_t kMaxElements = std::size_t{1} << 22;
inline constexpr std::size_t kMaxGraphElements = std::size_t{1} << 24;

//! Product of the dimensions of a shape already known to be valid.
std::size_t elementCount(const Shape& shape);

//! Checks that every dimension is at least 1 and the element count stays within kMaxElements.
Result<std::size_t> checkShape(const Shape& shape);

//! "[2, 3]"; "[]" for a scalar.
std::string formatShape(const Shape& shape);

}  // namespace tc
