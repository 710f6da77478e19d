#include "core/instantiate/instantiate_forward.hpp"

namespace tc {
TAPECHECK_INSTANTIATE_FORWARD(Dual<Interval>)
}  // namespace tc
