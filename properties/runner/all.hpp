#pragma once
#include "properties/oracles/accuracy.h"
#include "properties/oracles/adjoint_identity.h"
#include "properties/runner/all.h"
#include "properties/theorems/backwardDenseAllFrom_eq_dense.h"
#include "properties/theorems/compileChecked_backwardDenseFrom.h"
#include "properties/theorems/compileChecked_backwardDenseFrom_eq_tape.h"
#include "properties/theorems/compileChecked_context.h"
#include "properties/theorems/compileChecked_eq_lowerToTapeChecked.h"
#include "properties/oracles/determinism.h"
#include "properties/oracles/domain_errors.h"
#include "properties/oracles/exact_reference.h"
#include "properties/oracles/file_round_trip.h"
#include "properties/oracles/forward_oracle.h"
#include "properties/oracles/index_bounds.h"
#include "properties/oracles/kink_conventions.h"
#include "properties/oracles/linearity.h"
#include "properties/oracles/literal_reader.h"
#include "properties/oracles/node_adjoint_identity.h"
#include "properties/oracles/profile_file.h"
#include "properties/oracles/shrinking.h"
#include "properties/theorems/lowerChecked_toTape.h"
#include "properties/theorems/ofGraph_toTape.h"

namespace tc::props {
namespace detail {

// A runtime-scoped property behind the uniform signature.
template <class T, Verdict (*check)(const Case<T>&)>
Verdict ignoringEngine(const EngineUnderTest<T>&, const Case<T>& c) {
  return check(c);
}

// The ops for which `holds` holds, in registry order.
template <class Predicate>
std::vector<OpKind> opsWhere(Predicate holds) {
  std::vector<OpKind> out;
  for (std::size_t i = 0; i < kOpCount; ++i)
    if (holds(static_cast<OpKind>(i))) out.push_back(static_cast<OpKind>(i));
  return out;
}

// The ops with kinks; every op but opaque programs (which have no budget and no certified support);
// every op.
inline std::span<const OpKind> kinkedOps() {
  static const std::vector<OpKind> kinked = opsWhere(ops::hasKinks);
  return kinked;
}
inline std::span<const OpKind> compactOps() {
  static const std::vector<OpKind> compact = opsWhere([](OpKind op) { return !ops::isDense(op); });
  return compact;
}

// Whether every node of `graph` (none, in a graph without nodes), or some node, has a reverse program
// linear in its cotangent (every op's but a non-linear opaque program's): what the graph-level and the
// node-level adjoint identity compare.
template <class T>
bool everyNodeLinearInCotangent(const Graph<T>& graph) {
  return std::ranges::all_of(graph.nodes, [](const Node<T>& n) { return ops::linearInCotangent(n.op, n.attrs); });
}
template <class T>
bool someNodeLinearInCotangent(const Graph<T>& graph) {
  return std::ranges::any_of(graph.nodes, [](const Node<T>& n) { return ops::linearInCotangent(n.op, n.attrs); });
}

}  // namespace detail

template <class T>
std::vector<NamedProperty<T>> propertiesFor(gen::Domain domain) {
  using detail::ignoringEngine;
  std::vector<NamedProperty<T>> all{
      {"ofGraph_toTape", Scope::runtime, &ignoringEngine<T, &ofGraph_toTape<T>>},
      {"lowerChecked_toTape", Scope::runtime, &ignoringEngine<T, &lowerChecked_toTape<T>>},
      {"compileChecked_eq_lowerToTapeChecked", Scope::runtime,
       &ignoringEngine<T, &compileChecked_eq_lowerToTapeChecked<T>>},
      {"compileChecked_context", Scope::engine, &compileChecked_context<T>},
      {"compileChecked_backwardDenseFrom", Scope::engine, &compileChecked_backwardDenseFrom<T>},
      {"compileChecked_backwardDenseFrom_eq_tape", Scope::engine, &compileChecked_backwardDenseFrom_eq_tape<T>},
      {"backwardDenseAllFrom_eq_dense", Scope::engine, &backwardDenseAllFrom_eq_dense<T>},
      {"determinism", Scope::engine, &determinism<T>},
      {"file_round_trip", Scope::runtime, &ignoringEngine<T, &file_round_trip<T>>},
      {"domain_errors", Scope::engine, &domain_errors<T>},
      {"index_bounds", Scope::runtime, &ignoringEngine<T, &index_bounds<T>>},
      {"profile_file", Scope::runtime, &ignoringEngine<T, &profile_file<T>>},
      {"shrinker", Scope::runtime, &ignoringEngine<T, &shrinker<T>>, {}, "a node, and at most 64 nodes of 4096 elements",
       &shrinking::withinBounds<T>}};
  if constexpr (Carrier<T>::caps.ordered && !Carrier<T>::caps.enclosure)
    all.push_back({"kink_conventions", Scope::engine, &kink_conventions<T>, detail::kinkedOps(),
                   "a relu, abs, clamp, max or min node"});
  if constexpr (readsLiterals<T>)
    all.push_back({"literal_reader", Scope::runtime, &ignoringEngine<T, &literal_reader<T>>});
  if constexpr (std::is_same_v<T, Rational> || std::is_same_v<T, ModP> || Carrier<T>::caps.enclosure) {
    all.push_back({"adjoint_identity", Scope::engine, &adjoint_identity<T>, {},
                   "no node whose program is a non-linear opaque one", &detail::everyNodeLinearInCotangent<T>,
                   /*comparesOffKinks=*/true});
    all.push_back({"node_adjoint_identity", Scope::runtime, &ignoringEngine<T, &node_adjoint_identity<T>>, {},
                   "a node whose program is not a non-linear opaque one", &detail::someNodeLinearInCotangent<T>});
  }
  if constexpr (Carrier<T>::caps.exact && !Carrier<T>::caps.enclosure)
    all.push_back({"linearity", Scope::runtime, &ignoringEngine<T, &linearity<T>>, detail::compactOps(),
                   "a node that is not an opaque program"});
  if constexpr (std::is_floating_point_v<T>)
    all.push_back(
        {"accuracy", Scope::engine, &accuracyWithStressValues<T>, detail::compactOps(), "a node that is not an opaque program"});
  if constexpr (std::is_floating_point_v<T>)
    if (domain == gen::Domain::exact) all.push_back({"exact_reference", Scope::engine, &exact_reference<T>});
  // On IEEE carriers the naive definitions are compared on the exact domain only, as exact_reference.
  if (!std::is_floating_point_v<T> || domain == gen::Domain::exact) {
    all.push_back({"forward_oracle", Scope::engine, &forward_oracle<T>, detail::compactOps(),
                   "a node that is not an opaque program"});
    all.back().drawsSignedZeros = true;  // compares each node on the engine's arguments, folds' zero signs left alone
  }
  return all;
}

template <class T>
bool appliesToGraph(const NamedProperty<T>& property, const Graph<T>& graph) {
  std::vector<OpKind> ops;
  for (const Node<T>& node : graph.nodes) ops.push_back(node.op);
  return appliesToOps(property, ops) && (!property.comparesOn || property.comparesOn(graph));
}

template <class T>
bool onlyInExactDomain(std::string_view property) {
  static const std::vector<NamedProperty<T>> general = propertiesFor<T>(gen::Domain::general);
  return findProperty<T>(property) && std::ranges::find(general, property, &NamedProperty<T>::name) == general.end();
}

template <class T>
const NamedProperty<T>* findProperty(std::string_view name) {
  static const std::vector<NamedProperty<T>> all = propertiesFor<T>(gen::Domain::exact);
  for (const auto& property : all)
    if (property.name == name) return &property;
  return nullptr;
}

}  // namespace tc::props

// The library's copies of the harness's and the core's templates, declared extern.
#include "properties/runner/instantiate/harness_instances.h"
