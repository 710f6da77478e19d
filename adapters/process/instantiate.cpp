// ProcessEngine on every carrier.
#include "adapters/process/process_engine.hpp"
#include "core/carriers/carrier.h"

namespace tc::process {

template class ProcessEngine<Rational>;
template class ProcessEngine<RationalNoEq>;
template class ProcessEngine<ModP>;
template class ProcessEngine<double>;
template class ProcessEngine<float>;
template class ProcessEngine<Interval>;

}  // namespace tc::process
