// The theorem properties and oracles on the rational carrier.
#include "generators/case_gen.hpp"
#include "tests/properties/suite.h"

namespace tc {
TAPECHECK_PROPERTY_SUITE(PropertiesRational, Rational)
}  // namespace tc
