#include "cli/run_output.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/io/document_format.h"

namespace tc::cli {

std::uint64_t clockSeed() {
  return static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007ULL;
}

std::string formatTable(const std::vector<RunRow>& rows) {
  std::string out = fmt::format("\n{:<42} {:<14} {:>6} {:>8} {:>7} {:>7} {:>6} {:>10}\n", "property", "carrier", "cases",
                                "compared", "skipped", "unsupp.", "result", "time ms");
  for (const RunRow& r : rows)
    out += fmt::format("{:<42} {:<14} {:>6} {:>8} {:>7} {:>7} {:>6} {:>10.1f}\n", r.property, r.carrier, r.run.cases,
                       r.run.compared(), r.run.skipped, r.run.unsupported, r.run.passed() ? "pass" : "FAIL", r.run.ms);
  for (const RunRow& r : rows)
    if (std::string empty = r.run.nothingCompared(); !empty.empty())
      out += fmt::format("{} on {}: {}\n", r.property, r.carrier, empty);
  return out;
}

bool saveCounterexample(const std::string& file, nlohmann::json doc, const nlohmann::json& failure) {
  doc["failure"] = failure;
  std::error_code ignored;
  std::filesystem::create_directories(std::filesystem::path(file).parent_path(), ignored);
  std::ofstream out(file);
  return static_cast<bool>(out << formatCaseDocument(doc));
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
