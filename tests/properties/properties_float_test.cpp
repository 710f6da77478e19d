// The theorem properties and oracles on the float carrier.
#include "tests/properties/suite.h"

namespace tc {
TAPECHECK_PROPERTY_SUITE(PropertiesFloat, float)
}  // namespace tc
