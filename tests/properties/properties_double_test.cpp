// The theorem properties and oracles on the double carrier.
#include "tests/properties/suite.h"

namespace tc {
TAPECHECK_PROPERTY_SUITE(PropertiesDouble, double)
}  // namespace tc
