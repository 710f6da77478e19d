#include "core/instantiate/instantiate_core.hpp"

namespace tc {
TAPECHECK_INSTANTIATE_CORE(Interval)
}  // namespace tc
