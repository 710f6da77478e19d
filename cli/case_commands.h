#pragma once
// Commands on one case file: replay a saved counterexample, check a user's graph, show a file.
#include <cstdint>
#include <optional>
#include <string>

#include "cli/budget.h"
#include "core/support/result.h"
#include "properties/compare.h"

namespace tc::cli {

struct Program;
struct CaseInput;
struct Judging;
class EngineSource;

//! Values a listing of `replay` or `show` gives a position, per column, without --full: more are
//! abbreviated to the first few, the last and how many ("0.1 0.2 … 0.9 (3025 values)").
inline constexpr std::size_t kListedValues = 16;

//! Options of `tapecheck replay CASE`: names left empty come from the file's failure object.
struct ReplayOptions {
  std::string file, property, carrier, engine;
  std::string engineCommand;    //!< --engine-cmd: an engine speaking docs/engine-protocol.md
  double engineTimeout = 10;    //!< seconds to wait for each of its answers
  std::optional<bool> isolate;  //!< --isolate/--no-isolate (cli/engine_choice.h)
  std::string engineLog;        //!< --engine-log: where the exchange with the engine's process is recorded
  std::string policy;           //!< bits or values; empty: the engine's announced policy, else bits
  std::string domain;  //!< default or exact; empty: the saved failure's, else as `check` chooses
  bool survey = false;             //!< also name each failure's kind: the op blamed and the class of difference
  std::string profileFile;         //!< the engine's profile as JSON; empty: the `spec` profile
  bool full = false;               //!< list every value (else a position of many is abbreviated)
  BudgetOptions budget;
};

//! Re-runs the saved case's property (or every property) and prints the verdicts and listing.
int replayCase(const ReplayOptions& options, const Program& program);

//! Options of `tapecheck check GRAPH`.
struct CheckOptions {
  std::string file;
  std::size_t cases = 100;  //!< random input and seed draws besides the file's own values
  bool casesGiven = false;  //!< --cases was given: a carrier it does not fit is refused, not run on fewer
  std::string carrier = "all", property = "all", engine;
  std::string engineCommand;    //!< --engine-cmd: an engine speaking docs/engine-protocol.md
  double engineTimeout = 10;    //!< seconds to wait for each of its answers
  std::optional<bool> isolate;  //!< --isolate/--no-isolate (cli/engine_choice.h)
  std::string engineLog;        //!< --engine-log: where the exchange with the engine's process is recorded
  std::string policy;           //!< bits or values; empty: the engine's announced policy, else bits
  std::string domain;  //!< default or exact (dyadic draws, and exact_reference joins); empty: the engine
                       //!< verdict for an engine not tapecheck's own (each property in its own domain), else default
  bool survey = false;          //!< tally every failure by kind instead of stopping at the first
  std::string profileFile;      //!< the engine's profile as JSON; empty: the `spec` profile
  std::optional<std::uint64_t> seed;
  std::string saveDir = "tapecheck-failures";
  BudgetOptions budget;
  bool quiet = false;  //!< print only failures, the carriers not checked and the summary line
};

//! Runs every applicable property on the graph: with the file's values and seeds when it has
//! them, plus `cases` random draws of the same shapes (without --cases, on a carrier the budget
//! refuses them on, as many as it allows, and says so).
int checkGraph(const CheckOptions& options, const Program& program);

//! Options of `tapecheck show FILE`.
struct ShowOptions {
  std::string file, carrier;
  bool dot = false;
  bool full = false;  //!< list every value (else a position of many is abbreviated)
  BudgetOptions budget;
};

//! Prints the listing of a case, or with `dot` a Graphviz picture; a saved failure's differing
//! positions are marked.
int showCase(const ShowOptions& options, const Program& program);

//! A saved counterexample's case judged again by the property and on the carrier its failure object
//! names (which must be one of tapecheck's carriers), by `source` as `judging` judges that property:
//! the verdict, or why the file cannot be judged (it does not load, passes the budget, or gives no
//! input values). The failure database of `run` (cli/saved_failures.h) replays with it.
Result<props::Verdict> rejudgeSavedCase(const CaseInput& input, const EngineSource& source, const Judging& judging,
                                        const BudgetOptions& budget);

}  // namespace tc::cli
