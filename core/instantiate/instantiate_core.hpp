#pragma once
// Explicit instantiation of the core templates for one carrier; each carrier gets its own
// translation unit so that users of the headers compile none of this.
#include "core/graph/builder.hpp"
#include "core/graph/cost.hpp"
#include "core/graph/node_program.hpp"
#include "core/ops/opaque.hpp"
#include "core/graph/pack_checks.hpp"
#include "core/io/case_file.hpp"
#include "core/io/listing.hpp"
#include "core/spec/reference.hpp"

#define TAPECHECK_INSTANTIATE_CORE(T)                                                                          \
  template class OpaqueRegistry<T>;                                                                            \
  template class GraphBuilder<T>;                                                                              \
  template Result<void> checkInputs<T>(const Graph<T>&, const Pack<T>&);                                       \
  template Result<void> checkData<T>(const Graph<T>&, const Data<T>&);                                         \
  template Result<void> checkSeedPack<T>(const Graph<T>&, const Pack<T>&);                                     \
  template Result<void> checkOutputSeed<T>(const Graph<T>&, std::size_t, const Tensor<T>&);                    \
  template Result<Shape> inferShape<T>(OpKind, const ShapeCall<T>&);                                           \
  template Tensor<T> forwardNode<T>(OpKind, const OpCall<T>&);                                                 \
  template void nodeTerms<T>(OpKind, const OpCall<T>&, const Tensor<T>&, const Tensor<T>&, Terms<T>&);         \
  template Tensor<T> forwardAt<T>(const Graph<T>&, std::span<const Tensor<T>>, const Data<T>&, std::size_t);   \
  template bool atKink<T>(const Graph<T>&, const Context<T>&, const Data<T>&, std::size_t);                   \
  template void smoothDirectionsAtKinks<T>(const Graph<T>&, const Context<T>&, const Data<T>&, std::size_t,    \
                                           Pack<T>&);                                                          \
  template Result<std::size_t> appendNode<T>(GraphBuilder<T>&, const nlohmann::json&);                         \
  template LocalContribution<T> localContribution<T>(const Graph<T>&, std::span<const Tensor<T>>,              \
                                                     const Data<T>&, std::size_t, const Tensor<T>&);           \
  template DomainError checkedForward<T>(OpKind, const OpCall<T>&, Tensor<T>&);                              \
  template Result<Tensor<T>> validateAndForward<T>(const Graph<T>&, std::span<const Tensor<T>>, const Data<T>&, \
                                                   std::size_t);                                               \
  template Result<void> validateAndForwardInto<T>(const Graph<T>&, std::span<const Tensor<T>>, const Data<T>&,  \
                                                   std::size_t, Tensor<T>&);                                   \
  template std::string describeNode<T>(const Graph<T>&, std::size_t);                                          \
  template std::optional<BudgetExcess> exceedsBudget<T>(const Graph<T>&, const Pack<T>*, const Data<T>&,        \
                                                        const PassCounts&, const Budget&);                      \
  template std::string describeExcess<T>(const Graph<T>&, const BudgetExcess&);                                 \
  template Result<Case<T>> parseCase<T>(std::string_view);                                                     \
  template Result<Case<T>> parseCase<T>(std::string_view, const CaseGate<T>&);                                 \
  template Result<Case<T>> readCaseFile<T>(const std::filesystem::path&);                                      \
  template Result<Case<T>> readCaseFile<T>(const std::filesystem::path&, const CaseGate<T>&);                  \
  template std::string writeCase<T>(const Case<T>&);                                                           \
  template Result<Case<T>> caseFromJson<T>(const nlohmann::json&);                                             \
  template Result<Case<T>> caseFromJson<T>(const nlohmann::json&, const CaseGate<T>&);                         \
  template nlohmann::json caseToJson<T>(const Case<T>&);                                                       \
  template Result<Tensor<T>> valuesFromJson<T>(const nlohmann::json&, const Shape&, const std::string&);       \
  template nlohmann::json packToJson<T>(const Pack<T>&);                                                       \
  template std::string formatListing<T>(const Graph<T>&, const std::vector<ListingColumn<T>>&, const ListingNotes&,   \
                                       std::size_t);                                                               \
  template std::string formatDot<T>(const Graph<T>&, const DotView<T>&);                                       \
  template std::string formatNodeCall<T>(const Graph<T>&, std::size_t);                                        \
  template std::string describeProgram<T>(const Graph<T>&, std::size_t);                                       \
  template std::string abbreviatedValues<T>(const Tensor<T>&, std::size_t);                                    \
  template Result<Context<T>> spec::eval<T>(const Graph<T>&, const Pack<T>&, const Data<T>&);                  \
  template Pack<T> spec::backpropAllCtx<T>(const Graph<T>&, const Context<T>&, const Data<T>&, const Pack<T>&); \
  template Result<Pack<T>> spec::backpropAll<T>(const Graph<T>&, const Pack<T>&, const Data<T>&, const Pack<T>&);
