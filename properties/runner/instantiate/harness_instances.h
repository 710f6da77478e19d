#pragma once
//! The properties' and the runner's templates that properties/runner/instantiate/*.cpp compile once
//! per carrier, the list written once: an instantiation file expands it with an empty PREFIX, and this
//! header declares every expansion `extern` for all other code, with the generator's, the engines' and
//! the core's. all.hpp, report.hpp and runner.hpp include it at their end, so a test or the command
//! that includes a definition calls the library's copy instead of compiling its own.
#include "generators/generator_instances.h"
#include "properties/engines/engine_instances.h"
#include "properties/runner/all.h"
#include "properties/runner/report.h"
#include "properties/runner/runner.h"

#define TAPECHECK_HARNESS_INSTANCES(PREFIX, T)                                                                              \
  PREFIX template std::vector<props::NamedProperty<T>> props::propertiesFor<T>(gen::Domain);                                \
  PREFIX template const props::NamedProperty<T>* props::findProperty<T>(std::string_view);                                  \
  PREFIX template bool props::onlyInExactDomain<T>(std::string_view);                                                        \
  PREFIX template bool props::appliesToGraph<T>(const props::NamedProperty<T>&, const Graph<T>&);                           \
  PREFIX template props::Verdict props::checkDocument<T>(const props::NamedProperty<T>&, const props::Subject<T>&,          \
                                                         const nlohmann::json&);                                            \
  PREFIX template props::Verdict props::checkLoadedCase<T>(const props::NamedProperty<T>&, const props::Subject<T>&,        \
                                                           const Case<T>&);                                                 \
  PREFIX template props::PropertyRun props::runPropertyOn<T>(const props::NamedProperty<T>&, const props::Subject<T>&,      \
                                                             std::size_t, const props::CaseSource<T>&, gen::CoverageTally*, \
                                                             bool, const gen::CaseOptions&);                                \
  PREFIX template props::PropertyRun props::runProperty<T>(const props::NamedProperty<T>&, const props::Subject<T>&,        \
                                                           const props::RunSettings&, gen::CoverageTally*);                 \
  PREFIX template std::string props::blamedOp<T>(const Case<T>&, const props::Verdict&);                                    \
  PREFIX template std::string props::formatCaseListing<T>(const nlohmann::json&, const props::Verdict&, std::size_t);       \
  PREFIX template std::string props::formatCaseDot<T>(const nlohmann::json&, const std::set<std::size_t>&, std::string);    \
  PREFIX template std::string props::formatCaseListing<T>(const Case<T>&, const props::Verdict&, std::size_t);              \
  PREFIX template std::string props::formatCaseDot<T>(const Case<T>&, const std::set<std::size_t>&, std::string);

namespace tc {
TAPECHECK_FOR_EACH_CARRIER(TAPECHECK_HARNESS_INSTANCES, extern)
}  // namespace tc
