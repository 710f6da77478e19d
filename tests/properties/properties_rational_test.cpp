// The theorem properties and oracles on the rational carrier.
#include "tests/properties/suite.h"

namespace tc {
TAPECHECK_PROPERTY_SUITE(PropertiesRational, Rational)
TAPECHECK_EXACT_ORACLES(PropertiesRational, Rational)
}  // namespace tc
