#include "core/instantiate/instantiate_exactness.hpp"

namespace tc {
TAPECHECK_INSTANTIATE_EXACTNESS(float)
}  // namespace tc
