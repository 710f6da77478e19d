#pragma once
// Hand-made cases run on one engine, for the tests of engines that are not tapecheck's own: a
// case document loaded, and compiled by the engine, or the test stops with why not.
#include <memory>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/io/case_file.h"
#include "properties/engines/engine.h"
#include "properties/runner/runner.h"

namespace tc::testing {

//! The case a document describes; throws (failing the test) when it does not load.
template <class T>
Case<T> loadedCase(const std::string& doc) {
  auto c = parseCase<T>(doc);
  if (!c) throw std::runtime_error("the case does not load: " + c.error().message);
  return std::move(*c);
}

//! The engine's execution of the case; throws (failing the test) when the engine does not compile it.
template <class T>
std::unique_ptr<const Execution<T>> compiledBy(const Engine<T>& engine, const Case<T>& c) {
  auto execution = engine.compile(c.graph, *c.inputs, c.data);
  if (!execution) throw std::runtime_error(std::string(engine.name()) + " does not compile it: " + execution.error().message);
  return std::move(*execution);
}

//! Every engine-scoped property on `cases` exact-domain cases (seed 1) passes on `subject`, none
//! unsupported, each comparing more than `minCompared` of them (a quarter of that for a property
//! that needs one of a few ops: kink_conventions), exact_reference among them.
template <class T>
void expectEveryEnginePropertyPassesInTheExactDomain(const props::EngineUnderTest<T>& subject, std::size_t cases,
                                                     std::size_t minCompared) {
  props::RunSettings settings{cases, 1};
  settings.domain = gen::Domain::exact;
  std::vector<std::string> run;
  for (const auto& property : props::propertiesFor<T>(gen::Domain::exact)) {
    if (property.scope != props::Scope::engine) continue;
    run.emplace_back(property.name);
    props::PropertyRun result = props::runProperty(property, subject, settings);
    EXPECT_EQ(result.unsupported, 0u) << property.name;
    // kink_conventions compares only cases holding one of five ops; accuracy, which needs any op but
    // opaque programs, compares nearly every case.
    const bool needsAFewOps = !property.needsOneOf.empty() && property.needsOneOf.size() * 2 < kOpCount;
    EXPECT_GT(result.compared(), needsAFewOps ? minCompared / 4 : minCompared) << property.name;
    EXPECT_TRUE(result.passed()) << property.name << ": " << result.whyNotPassed();
  }
  EXPECT_NE(std::find(run.begin(), run.end(), "exact_reference"), run.end());
}

}  // namespace tc::testing
