#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace tc::cli {

struct Program;

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
  int maxSize = 100;                  //!< generated cases grow from size 0 to this (0..100)
  std::string shard;                  //!< "I/N": run rows I, I+N, ...; default from GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS
  std::string jsonFile, junitFile;    //!< machine-readable reports, when named
  bool quiet = false;                 //!< only failures and the summary line
};

//! Runs every property on every carrier and prints the table; returns the exit status.
int runProperties(const RunOptions& options, const Program& program);

}  // namespace tc::cli
