#pragma once
#include <chrono>

#include "generators/case_gen.hpp"
#include "generators/coverage.hpp"
#include "properties/runner.h"

namespace tc::props {

template <class T>
Verdict checkDocument(const NamedProperty<T>& property, const Engine<T>& engine, const nlohmann::json& doc) {
  auto loaded = parseCase<T>(doc.dump());
  if (!loaded) return Verdict::fail("the case does not load: " + loaded.error().message);
  return property.check(engine, *loaded);
}

template <class T>
PropertyRun runProperty(const NamedProperty<T>& property, const Engine<T>& engine, std::size_t cases,
                        std::uint64_t runSeed, gen::CoverageTally* coverage) {
  PropertyRun run;
  auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < cases && !run.failure; ++i) {
    int size = static_cast<int>(i * 100 / cases);
    nlohmann::json doc = gen::randomCase<T>(caseSeed(runSeed, property.name, Carrier<T>::name, i), size);
    auto loaded = parseCase<T>(doc.dump());
    assert(loaded && "the generator builds cases that load");
    if (coverage) coverage->add(gen::coverageTags(*loaded));
    Verdict verdict = property.check(engine, *loaded);
    ++run.cases;
    if (!verdict.skipped.empty()) ++run.skipped, ++run.skipReasons[verdict.skipped];
    if (verdict.holds) continue;
    auto [small, steps] = gen::shrinkWhile<T>(
        doc, [&](const nlohmann::json& candidate) { return !checkDocument(property, engine, candidate).holds; });
    Verdict shrunkVerdict = checkDocument(property, engine, small);
    run.failure = Counterexample{std::move(doc), std::move(small), steps, std::move(shrunkVerdict)};
  }
  run.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace tc::props
