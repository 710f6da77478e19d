#pragma once
// Every property, by name: the seven theorems of the seed, then the oracles.
#include <string_view>
#include <vector>

#include "core/io/case_file.h"
#include "generators/generate.h"
#include "properties/compare.h"
#include "properties/engine_under_test.h"

namespace tc::props {

//! What a property checks: the engine under test, or tapecheck's own runtime layers (tapes and
//! saved graphs), which another engine does not have.
enum class Scope { engine, runtime };

//! A property and its name (the theorem's, for the seven theorem properties). Runtime-scoped
//! properties ignore the engine argument.
template <class T>
struct NamedProperty {
  std::string_view name;
  Scope scope;
  Verdict (*check)(const EngineUnderTest<T>&, const Case<T>&);
};

//! The theorem properties and every oracle that applies to carrier T in `domain`: linearity on
//! exact carriers, the adjoint identity where a dual carrier is instantiated (rational, modp),
//! exact_reference on IEEE carriers in the exact domain.
template <class T>
std::vector<NamedProperty<T>> propertiesFor(gen::Domain domain = gen::Domain::general);

//! The property of that name for carrier T in any domain, or nullptr.
template <class T>
const NamedProperty<T>* findProperty(std::string_view name);

//! The property names over every carrier, in table order.
std::vector<std::string_view> allPropertyNames();

}  // namespace tc::props
