#pragma once
// What a `tapecheck run` found, and its machine-readable forms (--json, --junit).
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/saved_failures.h"
#include "generators/coverage.h"
#include "properties/runner/runner.h"

namespace tc::cli {

//! One property on one carrier: its run, and for a failure the saved file and the listing; in a
//! survey the saved example of each kind of failure, in the order of run.kinds; why a
//! counterexample could not be saved (the run then ends with exit status 2). `domain` is where its
//! cases came from ("default" or "exact"); `domainShown` when the run mixes domains (the engine
//! verdict), so that the table names it.
struct RunRow {
  std::string property, carrier;
  props::PropertyRun run;
  std::string savedFile, listing;
  std::vector<std::string> kindFiles;
  std::vector<std::string> saveErrors;
  std::string domain = "default";
  bool domainShown = false;

  //! The carrier as tables name the row: "double", or "double (exact)" for an exact-domain row of
  //! a run that mixes domains.
  std::string carrierLabel() const { return domainShown && domain == "exact" ? carrier + " (exact)" : carrier; }
  //! Why shrinking this row's failure (or a survey's kind) could not be trusted; empty when it could.
  std::string shrinkerFault() const;
};

//! The coverage of one carrier's generated cases, and the floors they must reach.
struct CarrierCoverage {
  std::string carrier;
  gen::CoverageTally tally;
  std::vector<gen::CoverageFloor> floors;
};

//! Everything a run reports.
struct RunReport {
  std::uint64_t seed = 0;
  std::size_t casesPerProperty = 0;
  std::string engine, shard;
  std::string policy = "bits", domain = "default";
  nlohmann::json profile;  //!< the engine's profile (profileToJson)
  bool survey = false;
  int maxSize = 100;
  double timeBudget = 0;    //!< --time-budget in seconds; 0: none
  std::uint64_t rounds = 1;  //!< rounds of the rows, with seeds seed, seed + 1, ...
  double seconds = 0;
  std::vector<RunRow> rows;
  std::vector<CarrierCoverage> coverage;
  std::vector<std::string> coverageShortfalls;  //!< "rational: op matmul: 0.4% of 1000 cases, floor 2%"
  //! Where the coverage tags disagree with the hand-tagged corpus (generators/coverage_corpus.h):
  //! "double: example 12 is not counted in 'fan-out'". A fault in tapecheck: no floor can be trusted.
  std::vector<std::string> coverageTagFaults;
  //! Where the accuracy oracle misjudges its own witnesses (properties/oracles/accuracy_witnesses.h),
  //! checked on each IEEE carrier the run judged accuracy on: "double: add on double: the forward
  //! about 1.5 budgets off (0.8) passes". A fault in tapecheck: no accuracy verdict can be trusted.
  std::vector<std::string> accuracyOracleFaults;
  std::optional<SavedReport> saved;             //!< the saved counterexamples judged first; none with --no-replay-saved
  bool passed() const;
};

//! One JSON object: settings (seed, engine, policy, survey, ...), "passed", "results" (one per row:
//! cases, compared, skipped, unsupported, failed, the policy that judged it, a failure, the
//! survey's kinds), "coverage" per carrier and "saved" (the saved counterexamples judged first, or
//! null).
std::string runReportJson(const RunReport& report);

//! JUnit XML: one testcase per property × carrier (classname "tapecheck.<carrier>"); a failure
//! holds the verdict and the listing; the coverage table goes to the suite's system-out. The saved
//! counterexamples judged first are one more testcase ("tapecheck.saved"), failed when one fails again.
std::string runReportJunit(const RunReport& report, const std::string& coverageTable);

}  // namespace tc::cli
