#pragma once
// The harness templates (engines, properties, generators, coverage, runner), instantiated once
// per carrier so that the command line and the tests only include declarations.
#include "generators/generate.hpp"
#include "generators/shrink.hpp"
#include "generators/coverage.hpp"
#include "properties/runner/all.hpp"
#include "properties/engines/engine.hpp"
#include "properties/runner/report.hpp"
#include "properties/runner/runner.hpp"

#define TAPECHECK_INSTANTIATE_HARNESS(T)                                                                         \
  template const Engine<T>& builtinEngine<T>(std::string_view);                                                 \
  template std::vector<props::NamedProperty<T>> props::propertiesFor<T>(gen::Domain);                                      \
  template const props::NamedProperty<T>* props::findProperty<T>(std::string_view);                            \
  template bool props::appliesToGraph<T>(const props::NamedProperty<T>&, const Graph<T>&);                     \
  template props::Verdict props::checkDocument<T>(const props::NamedProperty<T>&, const props::Subject<T>&,      \
                                                  const nlohmann::json&);                                       \
  template props::Verdict props::checkLoadedCase<T>(const props::NamedProperty<T>&, const props::Subject<T>&,    \
                                                    const Case<T>&);                                            \
  template props::PropertyRun props::runPropertyOn<T>(const props::NamedProperty<T>&, const props::Subject<T>&,  \
                                                      std::size_t, const props::CaseSource<T>&, gen::CoverageTally*, \
                                                      bool, const gen::CaseOptions&);                           \
  template props::PropertyRun props::runProperty<T>(const props::NamedProperty<T>&, const props::Subject<T>&,    \
                                                    const props::RunSettings&, gen::CoverageTally*);            \
  template std::string props::blamedOp<T>(const Case<T>&, const props::Verdict&);                               \
  template nlohmann::json gen::randomCase<T>(std::uint64_t, int, const gen::CaseOptions&);                      \
  template gen::GeneratedCase<T> gen::generateCase<T>(std::uint64_t, int, const gen::CaseOptions&);             \
  template bool gen::meetsOptions<T>(const Case<T>&, const gen::CaseOptions&);                                  \
  template std::optional<gen::LoadedDoc<T>> gen::loadDoc<T>(nlohmann::json);                                   \
  template std::vector<gen::LoadedDoc<T>> gen::shrinksOf<T>(const gen::LoadedDoc<T>&);                          \
  template std::vector<gen::LoadedDoc<T>> gen::shrinksOf<T>(const nlohmann::json&);                             \
  template bool gen::forEachShrink<T>(const gen::LoadedDoc<T>&, const std::function<bool(gen::LoadedDoc<T>)>&);  \
  template std::vector<std::string> gen::coverageTags<T>(const Case<T>&);                                       \
  template std::vector<gen::CoverageFloor> gen::coverageFloors<T>(const gen::CaseOptions&);                      \
  template std::string props::formatCaseListing<T>(const nlohmann::json&, const props::Verdict&, std::size_t);     \
  template std::string props::formatCaseDot<T>(const nlohmann::json&, const std::set<std::size_t>&, std::string);  \
  template std::string props::formatCaseListing<T>(const Case<T>&, const props::Verdict&, std::size_t);            \
  template std::string props::formatCaseDot<T>(const Case<T>&, const std::set<std::size_t>&, std::string);         \
  template Case<T> gen::withRandomValues<T>(const Case<T>&, std::uint64_t, gen::Domain, gen::Values);
