#include "cli/run_output.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "cli/exit_codes.h"
#include "cli/output_files.h"
#include "core/io/document_format.h"
#include "core/support/text.h"

namespace tc::cli {

std::uint64_t clockSeed() {
  return static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007ULL;
}

namespace {

// "exp 0.998 (50%), sum 3.5 (1%)": a run's measures by name, with the share of the limit used.
std::string formatMeasures(const std::map<std::string, props::Measure>& measures) {
  std::vector<std::string> parts;
  for (const auto& [name, m] : measures) parts.push_back(fmt::format("{} {:.3g} ({:.0f}%)", name, m.value, 100 * m.ofLimit));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

std::string formatTable(const std::vector<RunRow>& rows) {
  std::string out = fmt::format("\n{:<42} {:<14} {:>6} {:>8} {:>7} {:>7} {:>6} {:>10}\n", "property", "carrier", "cases",
                                "compared", "skipped", "unsupp.", "result", "time ms");
  for (const RunRow& r : rows)
    out += fmt::format("{:<42} {:<14} {:>6} {:>8} {:>7} {:>7} {:>6} {:>10.1f}\n", r.property, r.carrierLabel(), r.run.cases,
                       r.run.compared(), r.run.skipped, r.run.unsupported, r.run.passed() ? "pass" : "FAIL", r.run.ms);
  for (const RunRow& r : rows)
    if (std::string empty = r.run.nothingCompared(); !empty.empty())
      out += fmt::format("{} on {}: {}\n", r.property, r.carrierLabel(), empty);
    else if (std::string partly = r.run.partlyCompared(); !partly.empty())
      out += fmt::format("{} on {}: {}\n", r.property, r.carrierLabel(), partly);
  for (const RunRow& r : rows)
    if (r.run.underDeviation > 0)
      out += fmt::format("{} on {}: {} of {} cases judged in part under a deviation the engine's profile declares\n",
                         r.property, r.carrierLabel(), r.run.underDeviation, r.run.cases);
  for (const RunRow& r : rows)
    if (!r.run.measures.empty()) out += fmt::format("{} on {}, per op the worst ulp distance (and the largest share of its budget used, at any element): {}\n", r.property, r.carrierLabel(), formatMeasures(r.run.measures));
  return out;
}

Result<void> saveCounterexample(const std::string& file, nlohmann::json doc, const nlohmann::json& failure) {
  doc["failure"] = failure;
  std::error_code error;
  const std::filesystem::path directory = std::filesystem::path(file).parent_path();
  if (!directory.empty() && !std::filesystem::create_directories(directory, error) && error)
    return fail(fmt::format("cannot create {}: {}", quote(directory.string()), error.message()));
  return writeWhole(file, formatCaseDocument(doc));
}

std::size_t reportSaveErrors(const std::vector<RunRow>& rows) {
  std::size_t errors = 0;
  for (const RunRow& row : rows)
    for (const std::string& error : row.saveErrors) report(kUsage, "could not save a counterexample: " + error), ++errors;
  return errors;
}

bool reportShrinkerFault(const std::vector<RunRow>& rows, std::string_view command) {
  for (const RunRow& row : rows)
    if (std::string fault = row.shrinkerFault(); !fault.empty()) {
      report(kUsage, fmt::format("{}: internal error: shrinking {} on {}: {}", command, row.property, row.carrier, fault));
      return true;
    }
  return false;
}

std::string formatSurvey(const std::vector<RunRow>& rows) {
  std::string out = "\nsurvey: failures by kind (example shrunk and saved per kind)\n" + props::surveyHeading();
  std::size_t kinds = 0;
  for (const RunRow& r : rows) {
    out += props::formatSurveyLines(r.property, r.carrier, r.run, r.kindFiles);
    kinds += r.run.kinds.size();
  }
  if (kinds == 0) out += "(no failures)\n";
  return out;
}

}  // namespace tc::cli
