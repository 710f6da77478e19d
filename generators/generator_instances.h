#pragma once
//! The generator's templates that properties/runner/instantiate/*.cpp compile once per carrier, the
//! list written once: the instantiation files expand it with an empty PREFIX, and this header declares
//! every expansion `extern` for all other code, with the core's (core/instantiate/core_instances.h).
//! generate.hpp, shrink.hpp and coverage.hpp include it at their end, so code that includes them
//! calls the library's copies instead of compiling its own for each carrier it uses.
#include "core/instantiate/core_instances.h"
#include "generators/coverage.h"
#include "generators/generate.h"
#include "generators/shrink.h"

#define TAPECHECK_GENERATOR_INSTANCES(PREFIX, T)                                                                       \
  PREFIX template nlohmann::json gen::randomCase<T>(std::uint64_t, int, const gen::CaseOptions&);                      \
  PREFIX template gen::GeneratedCase<T> gen::generateCase<T>(std::uint64_t, int, const gen::CaseOptions&);             \
  PREFIX template bool gen::meetsOptions<T>(const Case<T>&, const gen::CaseOptions&);                                  \
  PREFIX template std::optional<gen::LoadedDoc<T>> gen::loadDoc<T>(nlohmann::json);                                    \
  PREFIX template std::vector<gen::LoadedDoc<T>> gen::shrinksOf<T>(const gen::LoadedDoc<T>&);                          \
  PREFIX template std::vector<gen::LoadedDoc<T>> gen::shrinksOf<T>(const nlohmann::json&);                             \
  PREFIX template bool gen::forEachShrink<T>(const gen::LoadedDoc<T>&, const std::function<bool(gen::LoadedDoc<T>)>&); \
  PREFIX template std::vector<std::string> gen::coverageTags<T>(const Case<T>&);                                       \
  PREFIX template std::vector<gen::CoverageFloor> gen::coverageFloors<T>(const gen::CaseOptions&);                     \
  PREFIX template Case<T> gen::withRandomValues<T>(const Case<T>&, std::uint64_t, gen::Domain, gen::Values);

namespace tc {
TAPECHECK_FOR_EACH_CARRIER(TAPECHECK_GENERATOR_INSTANCES, extern)
}  // namespace tc
