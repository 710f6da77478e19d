#pragma once
// Every property, by name: the seven theorems of the seed, then the oracles.
#include <algorithm>
#include <iterator>
#include <span>
#include <type_traits>
#include <string_view>
#include <vector>

#include "core/io/case_file.h"
#include "generators/generate.h"
#include "properties/compare.h"
#include "properties/engines/engine_under_test.h"

namespace tc::props {

//! What a property checks: the engine under test, or tapecheck's own runtime layers (tapes and
//! saved graphs), which another engine does not have.
enum class Scope { engine, runtime };

//! A property and its name (the theorem's, for the seven theorem properties). Runtime-scoped
//! properties ignore the engine argument. `needsOneOf`, when not empty, lists the ops without a node
//! of one of which the property compares nothing (kink_conventions: the ops with kinks; accuracy and
//! linearity: every op but opaque programs): a run whose cases cannot hold one, or a check of a graph
//! that holds none, leaves the property out. `comparesOn`, when set, is what a graph must be for the
//! property to compare anything, beyond its ops (the adjoint identities: no node, or some node, whose
//! program is not a non-linear opaque one); a check leaves out a graph that is not. `needsWhat` says
//! either for people. `comparesOffKinks` marks a property that skips a case with a value at a kink
//! (adjoint_identity): a check draws every other one of its cases with spread inputs
//! (gen::withRandomValues), which a large tensor's draws from the small pools would nearly always put
//! at one. `drawsSignedZeros` marks a property whose exact-domain cases may hold −0
//! (gen::CaseOptions::signedZeros).
template <class T>
struct NamedProperty {
  std::string_view name;
  Scope scope;
  Verdict (*check)(const EngineUnderTest<T>&, const Case<T>&);
  std::span<const OpKind> needsOneOf{};
  std::string_view needsWhat{};  //!< for people: "a relu, abs, clamp, max or min node"
  bool (*comparesOn)(const Graph<T>&) = nullptr;
  bool comparesOffKinks = false;
  bool drawsSignedZeros = false;
};

//! Whether `property` can compare something on `graph`: its ops, and what else the property needs.
template <class T>
bool appliesToGraph(const NamedProperty<T>& property, const Graph<T>& graph);

//! Whether `property` can compare something on cases whose ops are among `ops`.
template <class T>
bool appliesToOps(const NamedProperty<T>& property, std::span<const OpKind> ops) {
  if (property.needsOneOf.empty()) return true;
  return std::any_of(ops.begin(), ops.end(), [&](OpKind op) {
    return std::find(property.needsOneOf.begin(), property.needsOneOf.end(), op) != property.needsOneOf.end();
  });
}

//! The theorem properties and every oracle that applies to carrier T in `domain`: linearity on
//! exact carriers, the adjoint identities where a dual carrier is instantiated (rational, modp,
//! interval), accuracy on IEEE carriers, and there exact_reference and forward_oracle in the exact
//! domain (forward_oracle on every other carrier in either domain).
template <class T>
std::vector<NamedProperty<T>> propertiesFor(gen::Domain domain = gen::Domain::general);

//! The properties the engine verdict judges on the whole default domain of an IEEE carrier: accuracy,
//! which bounds every op's rounding, and the two oracles of special values (the kinks at ±0 and NaN,
//! the domain boundaries with NaN and the infinities), which the exact domain never draws.
inline constexpr std::string_view kJudgedOnEveryValue[] = {"accuracy", "kink_conventions", "domain_errors"};

//! Where the engine verdict (docs/semantics.md §3.9) draws `property`'s cases from on carrier T:
//! on an exact carrier the default domain, compared exactly; on an IEEE carrier the default domain
//! for the properties of kJudgedOnEveryValue, and for every other one the exact domain, where a
//! correct engine's results are exact whatever its summation order and formulas.
template <class T>
gen::Domain verdictDomainOf(std::string_view property) {
  if constexpr (!std::is_floating_point_v<T>) return gen::Domain::general;
  return std::ranges::find(kJudgedOnEveryValue, property) != std::end(kJudgedOnEveryValue) ? gen::Domain::general
                                                                                            : gen::Domain::exact;
}

//! Whether `property` compares on carrier T only cases of the exact domain (propertiesFor lists it
//! there and not on every value): exact_reference and forward_oracle on IEEE carriers.
template <class T>
bool onlyInExactDomain(std::string_view property);

//! The property of that name for carrier T in any domain, or nullptr.
template <class T>
const NamedProperty<T>* findProperty(std::string_view name);

//! The property names over every carrier, in table order.
std::vector<std::string_view> allPropertyNames();

}  // namespace tc::props
