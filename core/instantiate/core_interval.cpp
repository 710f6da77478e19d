#include "core/instantiate/instantiate_core.hpp"

namespace tc {
TAPECHECK_INSTANTIATE_CORE(Interval)
// The accuracy budgets are computed on intervals only (they need abs and log).
template Tensor<Interval> accumulatedErrorAt<Interval>(const Graph<Interval>&, std::span<const Tensor<Interval>>,
                                                       const Data<Interval>&, std::size_t, const Tensor<Interval>&,
                                                       const ops::RoundingModel<Interval>&);
template TermsAndError<Interval> termsAndErrorAt<Interval>(const Graph<Interval>&, std::span<const Tensor<Interval>>,
                                                            const Data<Interval>&, std::size_t, const Tensor<Interval>&,
                                                            const Tensor<Interval>&, const ops::RoundingModel<Interval>&);
}  // namespace tc
