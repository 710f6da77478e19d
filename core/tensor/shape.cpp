#include "core/tensor/shape.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tc {

std::size_t elementCount(const Shape& shape) {
  std::size_t count = 1;
  for (std::size_t dim : shape) count *= dim;
  return count;
}

Result<std::size_t> checkShape(const Shape& shape) {
  std::size_t count = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return fail(fmt::format("shape {} has dimension {} equal to 0", formatShape(shape), i));
    if (shape[i] > kMaxElements / count)
      return fail(fmt::format("shape {} has more than {} elements", formatShape(shape), kMaxElements));
    count *= shape[i];
  }
  return count;
}

std::string formatShape(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

}  // namespace tc
