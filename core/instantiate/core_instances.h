#pragma once
//! The core's templates that core/instantiate/*.cpp compile once per carrier, each list written once:
//! an instantiation file expands it with an empty PREFIX, and this header declares every expansion
//! `extern` for all other code, so a file that includes a definition (a test, the harness, the
//! command) calls the library's copy instead of compiling its own for each carrier it uses. The core's
//! own .hpp files do not include it (that would be an arrow from core/ops up to core/instantiate): the
//! tests' precompiled header and the generator's, engines' and runner's lists do.
//! A template in a list must be declared by the headers below; one that a carrier does not
//! instantiate must not be declared extern for it (the link would fail).
#include "core/carriers/carrier.h"
#include "core/carriers/dual.h"
#include "core/carriers/grid_bound.h"
#include "core/graph/builder.h"
#include "core/graph/cost.h"
#include "core/graph/node_program.h"
#include "core/graph/pack_checks.h"
#include "core/io/case_file.h"
#include "core/io/listing.h"
#include "core/ops/opaque.h"
#include "core/runtime/compiled.h"
#include "core/runtime/forward.h"
#include "core/spec/exactness.h"
#include "core/spec/reference.h"

#define TAPECHECK_CORE_INSTANCES(PREFIX, T)                                                                                \
  PREFIX template class OpaqueRegistry<T>;                                                                                 \
  PREFIX template class GraphBuilder<T>;                                                                                   \
  PREFIX template Result<void> checkInputs<T>(const Graph<T>&, const Pack<T>&);                                            \
  PREFIX template Result<void> checkData<T>(const Graph<T>&, const Data<T>&);                                              \
  PREFIX template Result<void> checkSeedPack<T>(const Graph<T>&, const Pack<T>&);                                          \
  PREFIX template Result<void> checkOutputSeed<T>(const Graph<T>&, std::size_t, const Tensor<T>&);                         \
  PREFIX template Result<Shape> inferShape<T>(OpKind, const ShapeCall<T>&);                                                \
  PREFIX template Tensor<T> forwardNode<T>(OpKind, const OpCall<T>&);                                                      \
  PREFIX template void nodeTerms<T>(OpKind, const OpCall<T>&, const Tensor<T>&, const Tensor<T>&, Terms<T>&);              \
  PREFIX template Tensor<T> forwardAt<T>(const Graph<T>&, std::span<const Tensor<T>>, const Data<T>&, std::size_t);        \
  PREFIX template bool atKink<T>(const Graph<T>&, const Context<T>&, const Data<T>&, std::size_t);                         \
  PREFIX template void smoothDirectionsAtKinks<T>(const Graph<T>&, const Context<T>&, const Data<T>&, std::size_t,         \
                                                  Pack<T>&);                                                               \
  PREFIX template Result<std::size_t> appendNode<T>(GraphBuilder<T>&, const nlohmann::json&);                              \
  PREFIX template LocalContribution<T> localContribution<T>(const Graph<T>&, std::span<const Tensor<T>>,                   \
                                                            const Data<T>&, std::size_t, const Tensor<T>&);                \
  PREFIX template DomainError checkedForward<T>(OpKind, const OpCall<T>&, Tensor<T>&);                                     \
  PREFIX template Result<Tensor<T>> validateAndForward<T>(const Graph<T>&, std::span<const Tensor<T>>, const Data<T>&,     \
                                                          std::size_t);                                                    \
  PREFIX template Result<void> validateAndForwardInto<T>(const Graph<T>&, std::span<const Tensor<T>>, const Data<T>&,      \
                                                          std::size_t, Tensor<T>&);                                        \
  PREFIX template std::string describeNode<T>(const Graph<T>&, std::size_t);                                               \
  PREFIX template std::optional<BudgetExcess> exceedsBudget<T>(const Graph<T>&, const Pack<T>*, const Data<T>&,            \
                                                               const PassCounts&, const Budget&);                          \
  PREFIX template std::string describeExcess<T>(const Graph<T>&, const BudgetExcess&);                                     \
  PREFIX template Result<Case<T>> parseCase<T>(std::string_view);                                                          \
  PREFIX template Result<Case<T>> parseCase<T>(std::string_view, const CaseGate<T>&);                                      \
  PREFIX template Result<Case<T>> readCaseFile<T>(const std::filesystem::path&);                                           \
  PREFIX template Result<Case<T>> readCaseFile<T>(const std::filesystem::path&, const CaseGate<T>&);                       \
  PREFIX template std::string writeCase<T>(const Case<T>&);                                                                \
  PREFIX template Result<Case<T>> caseFromJson<T>(const nlohmann::json&);                                                  \
  PREFIX template Result<Case<T>> caseFromJson<T>(const nlohmann::json&, const CaseGate<T>&);                              \
  PREFIX template nlohmann::json caseToJson<T>(const Case<T>&);                                                            \
  PREFIX template Result<Tensor<T>> valuesFromJson<T>(const nlohmann::json&, const Shape&, const std::string&);            \
  PREFIX template nlohmann::json packToJson<T>(const Pack<T>&);                                                            \
  PREFIX template std::string formatListing<T>(const Graph<T>&, const std::vector<ListingColumn<T>>&, const ListingNotes&, \
                                              std::size_t);                                                                \
  PREFIX template std::string formatDot<T>(const Graph<T>&, const DotView<T>&);                                            \
  PREFIX template std::string formatNodeCall<T>(const Graph<T>&, std::size_t);                                             \
  PREFIX template std::string describeProgram<T>(const Graph<T>&, std::size_t);                                            \
  PREFIX template std::string abbreviatedValues<T>(const Tensor<T>&, std::size_t);                                         \
  PREFIX template Result<Context<T>> spec::eval<T>(const Graph<T>&, const Pack<T>&, const Data<T>&);                       \
  PREFIX template Pack<T> spec::backpropAllCtx<T>(const Graph<T>&, const Context<T>&, const Data<T>&, const Pack<T>&);     \
  PREFIX template Result<Pack<T>> spec::backpropAll<T>(const Graph<T>&, const Pack<T>&, const Data<T>&, const Pack<T>&);

#define TAPECHECK_RUNTIME_INSTANCES(PREFIX, T)                                                                       \
  PREFIX template std::shared_ptr<const Context<T>> evaluateUnchecked<T>(const Graph<T>&, const Pack<T>&,            \
                                                                         const Data<T>&);                            \
  PREFIX template Result<std::shared_ptr<const Context<T>>> evaluateChecked<T>(const Graph<T>&, Pack<T>,             \
                                                                               const Data<T>&);                      \
  PREFIX template struct Tape<T>;                                                                                    \
  PREFIX template TapeNode<T> leafTapeNode<T>(const Tensor<T>&);                                                     \
  PREFIX template TapeNode<T> denseTapeNode<T>(const Graph<T>&, const Data<T>&, std::shared_ptr<const Context<T>>,   \
                                               std::size_t);                                                         \
  PREFIX template TapeAndContext<T> lowerGraphDataToTape<T>(const Graph<T>&, const Pack<T>&, const Data<T>&);        \
  PREFIX template Result<TapeAndContext<T>> lowerToArrayChecked<T>(const Graph<T>&, const Pack<T>&, const Data<T>&); \
  PREFIX template Result<TapeAndContext<T>> lowerToTapeChecked<T>(const Graph<T>&, const Pack<T>&, const Data<T>&);  \
  PREFIX template class SavedGraph<T>;                                                                               \
  PREFIX template class GradientView<T>;                                                                             \
  PREFIX template class Compiled<T>;                                                                                 \
  PREFIX template Result<Compiled<T>> compileChecked<T>(const Graph<T>&, Pack<T>, const Data<T>&);

#define TAPECHECK_FORWARD_INSTANCES(PREFIX, T)                                                                      \
  PREFIX template class OpaqueRegistry<T>;                                                                          \
  PREFIX template Tensor<T> forwardNode<T>(OpKind, const OpCall<T>&);                                               \
  PREFIX template Tensor<T> forwardAt<T>(const Graph<T>&, std::span<const Tensor<T>>, const Data<T>&, std::size_t);

#define TAPECHECK_EXACTNESS_INSTANCES(PREFIX, T)                                                                           \
  PREFIX template class OpaqueRegistry<GridBound<T>>;                                                                      \
  PREFIX template Result<void> spec::checkOpsInExactDomain<T>(const Graph<T>&);                                            \
  PREFIX template Result<void> spec::checkExactDomain<T>(const Graph<T>&, const Pack<T>&, const Data<T>&, const Pack<T>&);

// The accuracy budgets are computed on intervals only (they need abs and log): core_interval.cpp.
#define TAPECHECK_INTERVAL_ERROR_INSTANCES(PREFIX)                                                                     \
  PREFIX template Tensor<Interval> accumulatedErrorAt<Interval>(const Graph<Interval>&, std::span<const Tensor<Interval>>, \
                                                                const Data<Interval>&, std::size_t, const Tensor<Interval>&, \
                                                                const ops::RoundingModel<Interval>&);                    \
  PREFIX template TermsAndError<Interval> termsAndErrorAt<Interval>(                                                     \
      const Graph<Interval>&, std::span<const Tensor<Interval>>, const Data<Interval>&, std::size_t,                    \
      const Tensor<Interval>&, const Tensor<Interval>&, const ops::RoundingModel<Interval>&);

//! Expands LIST(PREFIX, T) for every carrier the harness runs on (properties/runner/instantiate/*.cpp,
//! and core/instantiate/{core,runtime}_*.cpp: one file per carrier).
#define TAPECHECK_FOR_EACH_CARRIER(LIST, PREFIX) \
  LIST(PREFIX, Rational)                         \
  LIST(PREFIX, RationalNoEq)                     \
  LIST(PREFIX, ModP)                             \
  LIST(PREFIX, double)                           \
  LIST(PREFIX, float)                            \
  LIST(PREFIX, Interval)

namespace tc {
TAPECHECK_FOR_EACH_CARRIER(TAPECHECK_CORE_INSTANCES, extern)
TAPECHECK_INTERVAL_ERROR_INSTANCES(extern)
TAPECHECK_FOR_EACH_CARRIER(TAPECHECK_RUNTIME_INSTANCES, extern)
// Dual numbers only where the adjoint oracle differentiates forward (core/instantiate/forward_dual_*.cpp),
// the exact domain's bounds only on IEEE carriers (core/instantiate/exactness_*.cpp).
TAPECHECK_FORWARD_INSTANCES(extern, Dual<Rational>)
TAPECHECK_FORWARD_INSTANCES(extern, Dual<ModP>)
TAPECHECK_FORWARD_INSTANCES(extern, Dual<Interval>)
TAPECHECK_EXACTNESS_INSTANCES(extern, double)
TAPECHECK_EXACTNESS_INSTANCES(extern, float)
}  // namespace tc
