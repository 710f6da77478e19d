#include "properties/runner/instantiate/instantiate_harness.hpp"

namespace tc {
TAPECHECK_INSTANTIATE_HARNESS(Rational)
}  // namespace tc
