#pragma once
// The failure database of `tapecheck run`: before it generates a case, a run judges again every
// counterexample saved for its engine on the rows it runs (the case files in --corpus DIR, by default
// the folder failures are saved in), and says which still fail and which now pass (docs/cli.md).
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tc::cli {

struct BudgetOptions;
struct PlannedRow;
struct Judging;
class EngineSource;

//! One saved counterexample judged again.
struct SavedCase {
  enum class Outcome {
    stillFails,   //!< the property fails on it again: the run fails
    nowPasses,    //!< the property compared and held
    notCompared,  //!< the property held without comparing (an op the engine no longer supports, ...)
    notJudged,    //!< the file did not load or passed the budget: `why` says which
  };
  std::string file, property, carrier, domain;
  Outcome outcome = Outcome::notJudged;
  std::string why;          //!< the failure, what was not compared, or why the file was not judged
  std::string replayFlags;  //!< after `PROGRAM replay FILE`: replays it as this run judged it
};

//! What a run found in its corpus.
struct SavedReport {
  std::string dir;
  std::vector<SavedCase> cases;  //!< the engine's counterexamples on the rows run, by file name
  std::size_t others = 0;        //!< case files there for other engines or other rows, or no failure at all
  std::vector<std::string> unreadable;  //!< "FILE: why" for each .json file that is no case file

  std::size_t count(SavedCase::Outcome outcome) const;
  //! Nothing to say of the engine's saved counterexamples: none judged, no file unreadable.
  bool empty() const { return cases.empty() && unreadable.empty(); }
  //! No saved counterexample fails again.
  bool passed() const { return count(SavedCase::Outcome::stillFails) == 0; }
  //! "3 saved counterexamples in DIR: 1 still fails, 2 now pass", naming only the outcomes that
  //! occur; "no saved counterexample for this engine in DIR (...)" when none of them is the engine's.
  std::string summary() const;
};

//! Judges the counterexamples in `dir` whose failure object names `source`'s engine (the same engine
//! command, or the same engine name and no command) and a row of `rows` (property, carrier and the
//! domain it was found in), each as `judging` judges that row (`profileFile`: the --profile it was read
//! from, for the replay line). A missing `dir` holds none. Files are read within `budget`.
SavedReport replaySavedFailures(const std::string& dir, const std::vector<PlannedRow>& rows, const EngineSource& source,
                                const Judging& judging, const std::string& profileFile, const BudgetOptions& budget);

//! The summary and one line per counterexample (with `quiet`, only those that fail again and the
//! files not judged): what it found and, for a failure, `replayCommand` of it ("tapecheck replay
//! FILE --engine-cmd ...").
std::string formatSavedReport(const SavedReport& report, const std::function<std::string(const SavedCase&)>& replayCommand,
                              bool quiet);

}  // namespace tc::cli
