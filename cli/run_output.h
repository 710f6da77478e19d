#pragma once
// Printing and saving what property runs found (the results table, and each failure with its
// saved case file), and the seed of a run without --seed; shared by `tapecheck run` and
// `tapecheck check`. What a run found is cli/run_report.h.
#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/case_input.h"
#include "cli/engine_choice.h"
#include "cli/run_report.h"
#include "properties/engines/profile_json.h"
#include "core/carriers/carrier.h"
#include "core/io/document_format.h"
#include "properties/runner/report.h"

namespace tc::cli {

//! A run seed from the clock, for runs without --seed (it is always printed).
std::uint64_t clockSeed();

//! The table of rows: property, carrier, cases, compared, skipped, unsupported, result, time;
//! then why each row that compared nothing fails.
std::string formatTable(const std::vector<RunRow>& rows);

//! The survey table: one line per kind of failure (property, carrier, op, difference, cases,
//! the saved example).
std::string formatSurvey(const std::vector<RunRow>& rows);

//! Writes `doc` with its failure object to `file` (whole or not at all), creating its directory.
Result<void> saveCounterexample(const std::string& file, nlohmann::json doc, const nlohmann::json& failure);

//! Prints each row's save error on stderr (after the verdicts, which stand); returns how many.
std::size_t reportSaveErrors(const std::vector<RunRow>& rows);

//! Reports the first row whose shrinking went wrong (RunRow::shrinkerFault) as an internal error of
//! `command` on stderr; whether there was one (the command then exits 2: tapecheck is at fault).
bool reportShrinkerFault(const std::vector<RunRow>& rows, std::string_view command);

//! How a row was judged, as a saved failure records it and a printed command line repeats it: the
//! policy, the domain its cases came from, the engine's profile and the --profile file it was read
//! from (empty: announced by the engine, or `spec`).
struct JudgedBy {
  const Judging& judging;
  std::string domain;  //!< "default" or "exact"
  std::string profileFile;

  //! " --domain exact --policy bits", with " --profile FILE" when one was given.
  std::string flags() const {
    return fmt::format(" --domain {} --policy {}{}", domain, props::policyName(judging.policy),
                       profileFile.empty() ? "" : " --profile " + shellWord(profileFile));
  }
};

//! The failure object of a saved case: the property, carrier and engine (with the command of an
//! engine in another process, which replay needs given again: a file never runs a command), how it
//! was judged (domain, policy, the engine's profile: replay judges it the same way unless told
//! otherwise), why it failed and the positions it blames (which show --dot fills red).
template <class T>
nlohmann::json failureObject(const std::string& property, const EngineSource& source, std::uint64_t seed,
                             const props::Verdict& verdict, const JudgedBy& judged) {
  nlohmann::json failure{{"property", property},
                         {"carrier", Carrier<T>::name},
                         {"engine", source.name()},
                         {"seed", seed},
                         {"domain", judged.domain},
                         {"policy", props::policyName(judged.judging.policy)},
                         {"profile", profileToJson(judged.judging.profile)},
                         {"why", verdict.why},
                         {"positions", props::blamedPositions(verdict)}};
  if (!source.command().empty()) failure["engine_cmd"] = source.command();
  return failure;
}

//! What a failure's report says before the commands that replay and repeat it: a note when shrinking
//! went wrong, the verdict (property, carrier, engine, shrink steps, why), the shrunk listing and
//! "saved: FILE" (or "not saved: why"). Saves the shrunk counterexample as
//! "<dir>/<property>-<carrier>-<seed>.json" with its failure object, and fills row.listing and
//! row.savedFile (or row.saveErrors). `run`, `check` and the GoogleTest integration share it.
template <class T>
std::string saveFailure(RunRow& row, const EngineSource& source, std::uint64_t seed, const std::string& saveDir,
                        const JudgedBy& judged) {
  const std::string_view engine = source.name();
  const props::Counterexample& failure = *row.run.failure;
  const std::string_view carrier = Carrier<T>::name;
  row.listing = props::formatCaseListing<T>(failure.shrunk, failure.verdict);
  std::string text;
  if (!failure.shrinkerFault.empty())
    text += fmt::format("\ninternal error: shrinking {} on {} went wrong: {}; the case is shown and saved as generated\n",
                        row.property, carrier, failure.shrinkerFault);
  text += fmt::format("\n{} failed on {} with engine {} (shrunk in {} step{} from {} to {} nodes{}):\n  {}\n{}", row.property,
                      carrier, engine, failure.shrinkSteps, failure.shrinkSteps == 1 ? "" : "s",
                      failure.original.value("nodes", nlohmann::json::array()).size(),
                      failure.shrunk.value("nodes", nlohmann::json::array()).size(),
                      failure.startedFrom.empty() ? "" : ", the first step to " + failure.startedFrom,
                      failure.verdict.why, row.listing);
  std::string file = fmt::format("{}/{}-{}-{}.json", saveDir, row.property, carrier, seed);
  if (auto saved =
          saveCounterexample(file, failure.shrunk, failureObject<T>(row.property, source, seed, failure.verdict, judged))) {
    row.savedFile = file;
    text += fmt::format("saved: {}\n", file);
  } else {
    text += fmt::format("not saved: {}\n", saved.error().message);
    row.saveErrors.push_back(saved.error().message);
  }
  return text;
}

//! The arguments after `PROGRAM replay FILE` that replay a saved failure as it was judged: the
//! engine command of an engine in another process, then the policy, domain and profile.
inline std::string replayFlags(const EngineSource& source, const JudgedBy& judged) {
  return (source.command().empty() ? "" : " " + source.flags()) + judged.flags();
}

//! The command that replays a saved failure: "PROGRAM replay FILE" and its replayFlags.
inline std::string replayCommand(std::string_view program, std::string_view file, std::string_view flags) {
  return fmt::format("{} replay {}{}", program, file, flags);
}

// Prints the shrunk counterexample, saves it as "<dir>/<property>-<carrier>-<seed>.json" with its
// failure object, and prints how to replay it and how to repeat the run (`rerun`).
template <class T>
void reportFailure(RunRow& row, const Program& program, const EngineSource& source, std::uint64_t seed,
                   const std::string& saveDir, const JudgedBy& judged, const std::string& rerun) {
  std::string text = saveFailure<T>(row, source, seed, saveDir, judged);
  if (!row.savedFile.empty())
    text += fmt::format("replay: {}\n", replayCommand(program.name, row.savedFile, replayFlags(source, judged)));
  fmt::print("{}rerun:  {}\n", text, rerun);
}

// Saves the example of each kind a survey found as "<dir>/<property>-<carrier>-<seed>-<k>.json".
template <class T>
void saveSurveyKinds(RunRow& row, const EngineSource& source, std::uint64_t seed, const std::string& saveDir,
                     const JudgedBy& judged) {
  for (std::size_t k = 0; k < row.run.kinds.size(); ++k) {
    const props::FailureKind& kind = row.run.kinds[k];
    std::string file = fmt::format("{}/{}-{}-{}-{}.json", saveDir, row.property, Carrier<T>::name, seed, k + 1);
    nlohmann::json failure = failureObject<T>(row.property, source, seed, kind.example.verdict, judged);
    failure["op"] = kind.op, failure["in"] = kind.in, failure["difference"] = kind.difference;
    auto saved = saveCounterexample(file, kind.example.shrunk, failure);
    row.kindFiles.push_back(saved ? file : "(not saved)");
    if (!saved) row.saveErrors.push_back(saved.error().message);
  }
}

}  // namespace tc::cli
