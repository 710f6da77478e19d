#include "cli/saved_failures.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "cli/budget.h"
#include "cli/case_commands.h"
#include "cli/case_input.h"
#include "cli/engine_choice.h"
#include "cli/run.h"
#include "cli/run_output.h"
#include "core/support/text.h"

namespace tc::cli {
namespace {

// The regular files named *.json directly in `dir`, by name; none when it does not exist.
std::vector<std::filesystem::path> caseFilesIn(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end; it.increment(error))
    if (it->path().extension() == ".json" && it->is_regular_file(error)) files.push_back(it->path());
  std::ranges::sort(files);
  return files;
}

// Whether `input` was saved with `source`'s engine: the same command, or the same name and no command.
bool savedWith(const CaseInput& input, const EngineSource& source) {
  if (!input.engineCommand.empty()) return input.engineCommand == source.command();
  return source.command().empty() && input.engine == source.name();
}

// The row of the run the saved failure belongs to: its property and carrier, judged in the domain it
// was found in (a file without one was found on the default domain).
const PlannedRow* rowOf(const CaseInput& input, const std::vector<PlannedRow>& rows) {
  const std::string domain = input.domain.empty() ? "default" : input.domain;
  auto row = std::ranges::find_if(rows, [&](const PlannedRow& r) {
    return r.property == input.property && r.carrier == input.carrier && gen::domainName(r.domain) == domain;
  });
  return row == rows.end() ? nullptr : &*row;
}

SavedCase judged(const CaseInput& input, const PlannedRow& row, const EngineSource& source, const Judging& judging,
                 const std::string& profileFile, const BudgetOptions& budget) {
  const std::string domain(gen::domainName(row.domain));
  SavedCase saved{input.path, row.property,  row.carrier,
                  domain,     SavedCase::Outcome::notJudged, "", replayFlags(source, JudgedBy{judging, domain, profileFile})};
  auto verdict = rejudgeSavedCase(input, source, judging, budget);
  if (!verdict) {
    saved.why = verdict.error().message;
  } else if (!verdict->holds) {
    saved.outcome = SavedCase::Outcome::stillFails, saved.why = verdict->why;
  } else if (!verdict->unsupported.empty()) {
    saved.outcome = SavedCase::Outcome::notCompared;
    saved.why = "the engine does not support op " + verdict->unsupported;
  } else if (!verdict->skipped.empty()) {
    saved.outcome = SavedCase::Outcome::notCompared, saved.why = "does not apply: " + verdict->skipped;
  } else {
    saved.outcome = SavedCase::Outcome::nowPasses;
  }
  return saved;
}

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

std::size_t SavedReport::count(SavedCase::Outcome outcome) const {
  return static_cast<std::size_t>(std::ranges::count(cases, outcome, &SavedCase::outcome));
}

std::string SavedReport::summary() const {
  const std::string where = outsideText(dir);
  const std::string others =
      this->others ? fmt::format(" ({} there for other engines or rows)", plural(this->others, "file is", "files are")) : "";
  if (cases.empty()) return fmt::format("no saved counterexample for this engine in {}{}", where, others);
  std::vector<std::string> parts;
  using O = SavedCase::Outcome;
  for (auto [outcome, one, many] : {std::tuple{O::stillFails, "still fails", "still fail"},
                                    std::tuple{O::nowPasses, "now passes", "now pass"},
                                    std::tuple{O::notCompared, "compares nothing", "compare nothing"},
                                    std::tuple{O::notJudged, "not judged", "not judged"}})
    if (std::size_t n = count(outcome)) parts.push_back(plural(n, one, many));
  std::string text = fmt::format("{} in {}: ", plural(cases.size(), "saved counterexample", "saved counterexamples"), where);
  for (std::size_t i = 0; i < parts.size(); ++i) text += (i ? ", " : "") + parts[i];
  return text + others;
}

SavedReport replaySavedFailures(const std::string& dir, const std::vector<PlannedRow>& rows, const EngineSource& source,
                                const Judging& judging, const std::string& profileFile, const BudgetOptions& budget) {
  SavedReport report{dir, {}, 0, {}};
  for (const std::filesystem::path& file : caseFilesIn(dir)) {
    auto input = readCaseInput(file.string(), documentBound(budget));
    if (!input) {
      report.unreadable.push_back(input.error().message);
      continue;
    }
    const PlannedRow* row = input->property.empty() || !savedWith(*input, source) ? nullptr : rowOf(*input, rows);
    if (!row) {
      ++report.others;
      continue;
    }
    report.cases.push_back(judged(*input, *row, source, judging, profileFile, budget));
  }
  return report;
}

std::string formatSavedReport(const SavedReport& report, const std::function<std::string(const SavedCase&)>& replayCommand,
                              bool quiet) {
  std::string text = report.summary() + "\n";
  for (const SavedCase& saved : report.cases) {
    const std::string file = outsideText(saved.file);
    const std::string row = fmt::format("{} on {}{}", saved.property, saved.carrier,
                                        saved.domain == "exact" ? " (exact)" : "");
    switch (saved.outcome) {
      case SavedCase::Outcome::stillFails:
        text += fmt::format("  still fails: {} ({}): {}\n  replay: {}\n", file, row, saved.why, replayCommand(saved));
        break;
      case SavedCase::Outcome::notJudged:
        text += fmt::format("  not judged:  {} ({}): {}\n", file, row, saved.why);
        break;
      case SavedCase::Outcome::notCompared:
        if (!quiet) text += fmt::format("  compares nothing: {} ({}): {}\n", file, row, saved.why);
        break;
      case SavedCase::Outcome::nowPasses:
        if (!quiet) text += fmt::format("  now passes:  {} ({})\n", file, row);
        break;
    }
  }
  for (const std::string& unreadable : report.unreadable) text += fmt::format("  not a case file: {}\n", unreadable);
  return text;
}

}  // namespace tc::cli
