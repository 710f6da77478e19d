#pragma once
// Engines a program registers with tapecheck's command line (cli/main.h), and the catalog of every
// engine a command line knows: the registered ones and tapecheck's built-in ones.
#include <string>
#include <string_view>
#include <vector>

#include "adapters/process/serve.h"
#include "core/carriers/carrier.h"
#include "properties/compare.h"
#include "properties/engines/engine.h"
#include "properties/engines/profile.h"

namespace tc::cli {

//! An engine of yours under the name `--engine NAME` picks: its Engine<T> on each carrier it runs
//! (the engines must outlive the command line), what it declares about itself (the properties
//! judge it by its profile: carriers, ops, conventions), and the comparison policy it asks for.
//! Build one with namedEngine().
struct NamedEngine {
  std::string name;
  process::ServedEngines engines;
  EngineProfile profile;
  props::Policy policy = props::Policy::bits;

  //! Adds the engine of carrier T, which the profile then lists.
  template <class T>
  NamedEngine& on(const Engine<T>& engine) {
    engines.slot<T>() = &engine;
    profile.carriers.emplace_back(Carrier<T>::name);
    return *this;
  }
};

//! An engine named `name` on the carriers of the engines given, one per carrier, with the `spec`
//! profile under that name: `namedEngine("minigrad", minigradOnRational, minigradOnDouble)`.
template <class... T>
NamedEngine namedEngine(std::string name, const Engine<T>&... engines) {
  NamedEngine named{name, {}, specProfile(), props::Policy::bits};
  named.profile.name = std::move(name);
  (named.on(engines), ...);
  return named;
}

//! The engines a command line knows, by name: the program's own first, then the built-in ones.
class EngineCatalog {
 public:
  EngineCatalog() = default;
  //! Asserts that the names are unique and none is a built-in engine's.
  explicit EngineCatalog(std::vector<NamedEngine> registered);

  //! Every name --engine accepts.
  std::vector<std::string> names() const;
  //! The registered engine of that name, or nullptr (a built-in name, or none).
  const NamedEngine* registered(std::string_view name) const;
  //! What --engine means when it is not given: the first registered engine, else `compiled`.
  std::string defaultName() const;

 private:
  std::vector<NamedEngine> registered_;
};

}  // namespace tc::cli
