// The theorem properties and oracles on the rational_noeq carrier.
#include "tests/properties/suite.h"

namespace tc {
TAPECHECK_PROPERTY_SUITE(PropertiesRationalNoEq, RationalNoEq)
TAPECHECK_PROPERTY(PropertiesRationalNoEq, RationalNoEq, linearity)
}  // namespace tc
