#pragma once
#include <boost/container/small_vector.hpp>

#include <cstddef>
#include <string>

#include "core/support/result.h"

namespace tc {

//! Dimensions, outermost first; `{}` is a scalar. Every dimension is at least 1. Stored inline
//! up to rank 4, so copying a tensor's shape does not allocate.
using Shape = boost::container::small_vector<std::size_t, 4>;

//! The largest element count one tensor may have; keeps a hostile file from exhausting memory.
inline constexpr std::size_t kMaxElements = std::size_t{1} << 24;

//! Product of the dimensions of a shape already known to be valid.
std::size_t elementCount(const Shape& shape);

//! Checks that every dimension is at least 1 and the element count stays within kMaxElements.
Result<std::size_t> checkShape(const Shape& shape);

//! "[2, 3]"; "[]" for a scalar.
std::string formatShape(const Shape& shape);

}  // namespace tc
