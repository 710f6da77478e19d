// The theorem properties and oracles on the modp carrier.
#include "tests/properties/suite.h"

namespace tc {
TAPECHECK_PROPERTY_SUITE(PropertiesModP, ModP)
TAPECHECK_EXACT_ORACLES(PropertiesModP, ModP)
}  // namespace tc
