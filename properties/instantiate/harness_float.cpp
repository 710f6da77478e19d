#include "properties/instantiate/instantiate_harness.hpp"

namespace tc {
TAPECHECK_INSTANTIATE_HARNESS(float)
}  // namespace tc
