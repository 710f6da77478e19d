#include "core/instantiate/instantiate_runtime.hpp"

namespace tc {
TAPECHECK_INSTANTIATE_RUNTIME(Interval)
}  // namespace tc
