#pragma once
#include <chrono>

#include "generators/coverage.hpp"
#include "generators/generate.hpp"
#include "generators/shrink.hpp"
#include "properties/runner.h"

namespace tc::props {

namespace detail {

template <class T>
Verdict checkCase(const NamedProperty<T>& property, const Engine<T>& engine, const Case<T>& loaded) {
  if (!loaded.inputs) return Verdict::fail("the case gives no input values (\"values\")");
  return property.check(engine, loaded);
}

template <class T>
Verdict checkLoaded(const NamedProperty<T>& property, const Engine<T>& engine, const Result<Case<T>>& loaded) {
  if (!loaded) return Verdict::fail("the case does not load: " + loaded.error().message);
  return checkCase(property, engine, *loaded);
}

}  // namespace detail

template <class T>
Verdict checkDocument(const NamedProperty<T>& property, const Engine<T>& engine, const nlohmann::json& doc) {
  return detail::checkLoaded(property, engine, parseCase<T>(doc.dump()));
}

template <class T>
PropertyRun runPropertyOn(const NamedProperty<T>& property, const Engine<T>& engine, std::size_t cases,
                          const CaseSource& source, gen::CoverageTally* coverage) {
  PropertyRun run;
  auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < cases && !run.failure; ++i) {
    nlohmann::json doc = source(i);
    auto loaded = parseCase<T>(doc.dump());
    Verdict verdict = detail::checkLoaded(property, engine, loaded);
    if (loaded && loaded->inputs && coverage) coverage->add(gen::coverageTags(*loaded));
    ++run.cases;
    if (!verdict.skipped.empty()) ++run.skipped, ++run.skipReasons[verdict.skipped];
    if (verdict.holds) continue;
    if (!loaded || !loaded->inputs) {  // nothing to shrink
      run.failure = Counterexample{doc, doc, 0, std::move(verdict)};
      break;
    }
    gen::LoadedDoc<T> failing{doc, std::make_shared<const Case<T>>(std::move(*loaded))};
    auto [small, steps] = gen::shrinkWhile<T>(std::move(failing), [&](const gen::LoadedDoc<T>& candidate) {
      return !detail::checkCase(property, engine, *candidate.loaded).holds;
    });
    Verdict shrunkVerdict = detail::checkCase(property, engine, *small.loaded);
    run.failure = Counterexample{std::move(doc), std::move(small.doc), steps, std::move(shrunkVerdict)};
  }
  run.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return run;
}

template <class T>
PropertyRun runProperty(const NamedProperty<T>& property, const Engine<T>& engine, const RunSettings& settings,
                        gen::CoverageTally* coverage) {
  const int maxSize = std::clamp(settings.maxSize, 0, 100);
  return runPropertyOn(property, engine, settings.cases, [&](std::size_t i) {
    int size = static_cast<int>(i * static_cast<std::size_t>(maxSize) / std::max<std::size_t>(settings.cases, 1));
    return gen::randomCase<T>(caseSeed(settings.seed, property.name, Carrier<T>::name, i), size);
  }, coverage);
}

}  // namespace tc::props
