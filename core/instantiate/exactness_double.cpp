#include "core/instantiate/instantiate_exactness.hpp"

namespace tc {
TAPECHECK_INSTANTIATE_EXACTNESS(double)
}  // namespace tc
