#pragma once
// Running one property on generated cases: the loop behind `tapecheck run` and the tests that
// plug a faulty engine in. Deterministic in the run seed.
#include <nlohmann/json.hpp>

#include <cstdint>
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

//! The verdict on a case document; a document that does not load fails with the loader's message.
template <class T>
Verdict checkDocument(const NamedProperty<T>& property, const Engine<T>& engine, const nlohmann::json& doc);

//! Runs `property` on `cases` generated cases (sizes growing from 0 to 100), shrinking the first
//! failure. Each case's coverage tags go to `coverage` when given.
template <class T>
PropertyRun runProperty(const NamedProperty<T>& property, const Engine<T>& engine, std::size_t cases,
                        std::uint64_t runSeed, gen::CoverageTally* coverage = nullptr);

}  // namespace tc::props
