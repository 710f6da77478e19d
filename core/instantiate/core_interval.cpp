#include "core/instantiate/instantiate_core.hpp"

namespace tc {
TAPECHECK_INSTANTIATE_CORE(Interval)
TAPECHECK_INTERVAL_ERROR_INSTANCES()
}  // namespace tc
