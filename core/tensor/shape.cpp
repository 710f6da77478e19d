#include "core/tensor/shape.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

namespace tc {

Result<std::size_t> checkDimensions(std::span<const std::size_t> dims) {
  std::size_t count = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    std::string shown = fmt::format("[{}]", fmt::join(dims, ", "));
    if (dims[i] == 0)
      return fail(fmt::format("shape {}: dimension {} is 0; every dimension must be at least 1", shown, i));
    if (dims[i] > kMaxElements / count)
      return fail(fmt::format("shape {} has more than {} elements", shown, kMaxElements));
    count *= dims[i];
  }
  return count;
}

Result<std::size_t> checkShape(const Shape& shape) {
  std::vector<std::size_t> dims(shape.begin(), shape.end());
  return checkDimensions(dims);
}

std::string formatShape(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

}  // namespace tc
