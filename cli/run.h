#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/case_input.h"
#include "cli/run_report.h"
#include "core/support/result.h"
#include "generators/generate.h"

namespace tc::cli {

struct Program;
class EngineSource;

//! Options of `tapecheck run`.
struct RunOptions {
  std::size_t cases = 100;
  std::optional<std::uint64_t> seed;  //!< default: from the clock, printed so a run can be repeated
  std::string carrier = "all";
  std::string property = "all";
  std::string engine;                  //!< an engine by name; empty: the program's default, unless engineCommand is given
  std::string engineCommand;           //!< --engine-cmd: an engine speaking docs/engine-protocol.md
  double engineTimeout = 10;           //!< seconds to wait for each of its answers
  std::optional<bool> isolate;         //!< --isolate/--no-isolate (cli/engine_choice.h)
  std::string engineLog;               //!< --engine-log: where the exchange with the engine's process is recorded
  std::string policy;                  //!< bits or values; empty: the engine's announced policy, else bits
  std::string domain;                  //!< default or exact for every row; empty: the engine verdict for an engine
                                       //!< not tapecheck's own (each property in its own domain), else default
  std::string profileFile;             //!< the engine's profile as JSON; empty: the `spec` profile
  bool survey = false;                //!< tally every failure by kind instead of stopping at the first
  std::string saveDir = "tapecheck-failures";
  std::string corpus;                 //!< --corpus: where saved counterexamples are judged first; empty: saveDir
  bool replaySaved = true;            //!< judge the saved counterexamples first (not in a survey)
  double timeBudget = 0;              //!< --time-budget: seconds of rounds with seeds seed, seed+1, ...; 0: one round
  int maxSize = 100;                  //!< generated cases grow from size 0 to this (0..100)
  std::string shard;                  //!< "I/N": run rows I, I+N, ...; default from GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS
  std::string jsonFile, junitFile;    //!< machine-readable reports, when named
  bool quiet = false;                 //!< only failures and the summary line
};

//! One row of a run: a property on a carrier, its cases drawn from `domain`.
struct PlannedRow {
  std::string carrier, property;
  gen::Domain domain;
};

//! One row run: what it found, and for a failure (not in a survey) the report `run` prints before
//! its replay and rerun lines (saveFailure: the verdict, the listing, the saved file), with the
//! arguments that replay the saved file after `PROGRAM replay FILE` (replayFlags).
struct RowOutcome {
  RunRow row;
  std::string failureReport, replayFlags;
};

//! A run made ready, as `tapecheck run` and the GoogleTest integration (integrations/gtest.h) run
//! it: the options checked, the engine opened (an isolated one started), how it is judged, and the
//! rows planned. Each row then runs on its own.
class RunSession {
 public:
  //! Checks the options (property name, output paths) and opens the engine; a user error is a
  //! message, which a command prefixes with its name.
  static Result<std::unique_ptr<RunSession>> open(const RunOptions& options, const Program& program);
  ~RunSession();

  //! The rows, in order (never empty): (carrier, property, domain) for every property that applies
  //! on the carriers the engine runs; only the engine-scoped ones for an engine not tapecheck's own.
  const std::vector<PlannedRow>& rows() const { return rows_; }
  const EngineSource& source() const { return *source_; }
  const Judging& judging() const { return judging_; }

  //! Runs rows()[r] with `seed`, its cases' coverage counted in `coverage`; saves a failure's
  //! counterexample in options.saveDir (or a survey's examples). A failure the engine faulted on
  //! starts shrinking from what an earlier row's fault shrank to, when that faults here too.
  RowOutcome runRow(std::size_t r, std::uint64_t seed, gen::CoverageTally& coverage) const;

  //! Whether the run judges saved counterexamples first: asked (options.replaySaved) and not a survey.
  bool replaysSaved() const { return options_.replaySaved && !options_.survey; }
  //! The failure database: the counterexamples saved for this engine in options.corpus (default
  //! options.saveDir) on the rows `runs` marks (empty: every row), judged as those rows are.
  SavedReport replaySaved(const std::vector<bool>& runs = {}) const;

 private:
  RunSession(const RunOptions& options, std::unique_ptr<EngineSource> source, Judging judging);

  RunOptions options_;
  std::unique_ptr<EngineSource> source_;
  Judging judging_;
  std::vector<PlannedRow> rows_;
  mutable props::FaultedCases faultedCases_;  // the rows' shrunk engine faults (runRow)
};

//! Runs every property on every carrier and prints the table; returns the exit status.
int runProperties(const RunOptions& options, const Program& program);

}  // namespace tc::cli
