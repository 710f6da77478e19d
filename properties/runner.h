#pragma once
// Running one property on generated cases: the loop behind `tapecheck run` and the tests that
// plug a faulty engine in. Deterministic in the run seed.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "generators/coverage.h"
#include "properties/all.h"

namespace tc::props {

//! A failing case as generated, the smallest failing case shrinking found, and its verdict.
struct Counterexample {
  nlohmann::json original, shrunk;
  std::size_t shrinkSteps = 0;
  Verdict verdict;
};

//! How a property fared on one carrier: cases run, cases it did not apply to (by reason), time,
//! and the counterexample if one case failed (the run stops at the first failure).
struct PropertyRun {
  std::size_t cases = 0, skipped = 0;
  std::map<std::string, std::size_t> skipReasons;
  double ms = 0;
  std::optional<Counterexample> failure;
};

//! The seed of case `index` of a property on a carrier, in a run with `runSeed`.
std::uint64_t caseSeed(std::uint64_t runSeed, std::string_view property, std::string_view carrier, std::size_t index);

//! How many generated cases a property runs on, from which run seed, and how large they grow:
//! case i of n has size i * maxSize / n (0 to 100 scales the number of nodes).
struct RunSettings {
  std::size_t cases = 100;
  std::uint64_t seed = 1;
  int maxSize = 100;
};

//! Where a run's cases come from: the document of case `index`.
using CaseSource = std::function<nlohmann::json(std::size_t index)>;

//! The verdict on a case document; a document that does not load fails with the loader's message.
template <class T>
Verdict checkDocument(const NamedProperty<T>& property, const Engine<T>& engine, const nlohmann::json& doc);

//! Runs `property` on `cases` documents from `source`, shrinking the first failure. Each case's
//! coverage tags go to `coverage` when given. A document that does not load fails the run.
template <class T>
PropertyRun runPropertyOn(const NamedProperty<T>& property, const Engine<T>& engine, std::size_t cases,
                          const CaseSource& source, gen::CoverageTally* coverage = nullptr);

//! runPropertyOn with generated cases.
template <class T>
PropertyRun runProperty(const NamedProperty<T>& property, const Engine<T>& engine, const RunSettings& settings,
                        gen::CoverageTally* coverage = nullptr);

}  // namespace tc::props
