#include "core/instantiate/instantiate_core.hpp"

namespace tc {
TAPECHECK_INSTANTIATE_CORE(double)
}  // namespace tc
