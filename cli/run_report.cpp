#include "cli/run_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tc::cli {
namespace {

// Text safe inside XML 1.0 attributes and elements: markup escaped, and control characters
// XML cannot hold replaced.
std::string xmlEscaped(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += (c < 0x20 && c != '\n' && c != '\t') ? '?' : static_cast<char>(c);
    }
  }
  return out;
}

const char* outcomeName(SavedCase::Outcome outcome) {
  switch (outcome) {
    case SavedCase::Outcome::stillFails: return "fail";
    case SavedCase::Outcome::nowPasses: return "pass";
    case SavedCase::Outcome::notCompared: return "not compared";
    case SavedCase::Outcome::notJudged: return "not judged";
  }
  return "";
}

nlohmann::json savedJson(const std::optional<SavedReport>& saved) {
  if (!saved) return nullptr;
  nlohmann::json cases = nlohmann::json::array();
  for (const SavedCase& c : saved->cases)
    cases.push_back({{"file", c.file},
                     {"property", c.property},
                     {"carrier", c.carrier},
                     {"domain", c.domain},
                     {"result", outcomeName(c.outcome)},
                     {"why", c.why}});
  return {{"dir", saved->dir},
          {"cases", std::move(cases)},
          {"others", saved->others},
          {"unreadable", saved->unreadable},
          {"passed", saved->passed()}};
}

// The saved counterexamples as one testcase, failed when one fails again.
std::string savedTestcase(const SavedReport& saved) {
  std::string out = "    <testcase classname=\"tapecheck.saved\" name=\"saved counterexamples\" time=\"0\"";
  std::string failures;
  for (const SavedCase& c : saved.cases)
    if (c.outcome == SavedCase::Outcome::stillFails)
      failures += fmt::format("{} ({} on {}): {}\n", c.file, c.property, c.carrier, c.why);
  if (failures.empty()) return out + fmt::format("><system-out>{}</system-out></testcase>\n", xmlEscaped(saved.summary()));
  return out + fmt::format(">\n      <failure message=\"{}\" type=\"saved-counterexample\">{}</failure>\n    </testcase>\n",
                           xmlEscaped(saved.summary()), xmlEscaped(failures));
}

}  // namespace

std::string RunRow::shrinkerFault() const {
  if (run.failure && !run.failure->shrinkerFault.empty()) return run.failure->shrinkerFault;
  for (const props::FailureKind& kind : run.kinds)
    if (!kind.example.shrinkerFault.empty()) return kind.example.shrinkerFault;
  return {};
}

bool RunReport::passed() const {
  for (const RunRow& row : rows)
    if (!row.run.passed()) return false;
  return coverageShortfalls.empty() && coverageTagFaults.empty() && accuracyOracleFaults.empty() &&
         (!saved || saved->passed());
}

std::string runReportJson(const RunReport& report) {
  using nlohmann::json;
  json results = json::array();
  for (const RunRow& row : report.rows) {
    json entry{{"property", row.property},
               {"carrier", row.carrier},
               {"domain", row.domain},
               {"policy", report.policy},
               {"cases", row.run.cases},
               {"compared", row.run.compared()},
               {"skipped", row.run.skipped},
               {"skip_reasons", row.run.skipReasons},
               {"unsupported", row.run.unsupported},
               {"unsupported_ops", row.run.unsupportedOps},
               {"failed", row.run.failed},
               {"under_deviation", row.run.underDeviation},
               {"result", row.run.passed() ? "pass" : "fail"},
               {"ms", row.run.ms}};
    if (std::string empty = row.run.nothingCompared(); !empty.empty()) entry["why"] = empty;
    for (const auto& [name, m] : row.run.measures) entry["measures"][name] = {{"value", m.value}, {"of_limit", m.ofLimit}};
    if (row.run.failure) {
      const props::Counterexample& f = *row.run.failure;
      entry["failure"] = {{"why", f.verdict.why},          {"nodes", f.shrunk.value("nodes", json::array()).size()},
                          {"shrink_steps", f.shrinkSteps}, {"saved", row.savedFile},
                          {"positions", props::blamedPositions(f.verdict)}, {"case", f.shrunk}};
      if (!f.shrinkerFault.empty()) entry["failure"]["shrinker_fault"] = f.shrinkerFault;
      if (!f.startedFrom.empty()) entry["failure"]["shrink_started_from"] = f.startedFrom;
    }
    if (report.survey) {
      json kinds = json::array();
      for (std::size_t k = 0; k < row.run.kinds.size(); ++k) {
        const props::FailureKind& kind = row.run.kinds[k];
        kinds.push_back({{"op", kind.op},
                         {"in", kind.in},
                         {"label", kind.label()},
                         {"difference", kind.difference},
                         {"cases", kind.cases},
                         {"why", kind.example.verdict.why},
                         {"saved", k < row.kindFiles.size() ? row.kindFiles[k] : ""}});
      }
      entry["kinds"] = std::move(kinds);
    }
    results.push_back(std::move(entry));
  }
  json coverage = json::object();
  for (const CarrierCoverage& c : report.coverage) {
    json floors = json::object();
    json notJudged = json::array();
    for (const auto& floor : c.floors) {
      floors[floor.tag] = floor.minShare;
      if (!c.tally.judges(floor)) notJudged.push_back(floor.tag);
    }
    coverage[c.carrier] = {
        {"cases", c.tally.cases()}, {"counts", c.tally.counts()}, {"floors", floors}, {"floors_not_judged", notJudged}};
  }
  json out{{"tapecheck_run", 1},
           {"seed", report.seed},
           {"cases_per_property", report.casesPerProperty},
           {"engine", report.engine},
           {"domain", report.domain},
           {"policy", report.policy},
           {"survey", report.survey},
           {"profile", report.profile},
           {"max_size", report.maxSize},
           {"time_budget", report.timeBudget},
           {"rounds", report.rounds},
           {"shard", report.shard},
           {"seconds", report.seconds},
           {"passed", report.passed()},
           {"results", results},
           {"coverage", coverage},
           {"coverage_shortfalls", report.coverageShortfalls},
           {"coverage_tag_faults", report.coverageTagFaults},
           {"accuracy_oracle_faults", report.accuracyOracleFaults},
           {"saved", savedJson(report.saved)}};
  return out.dump(2) + "\n";
}

std::string runReportJunit(const RunReport& report, const std::string& coverageTable) {
  std::size_t failures = 0;
  for (const RunRow& row : report.rows) failures += !row.run.passed();
  // The saved counterexamples' testcase, when the run judged any.
  const bool saved = report.saved && !report.saved->empty();
  const std::size_t tests = report.rows.size() + (saved ? 1 : 0);
  failures += saved && !report.saved->passed();
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"tapecheck\" tests=\"{}\" failures=\"{}\" time=\"{:.3f}\">\n", tests,
                     failures, report.seconds);
  out += fmt::format("  <testsuite name=\"tapecheck run\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{:.3f}\">\n",
                     tests, failures, report.seconds);
  out += "    <properties>\n";
  for (const auto& [name, value] : {std::pair<std::string, std::string>{"seed", std::to_string(report.seed)},
                                    {"cases", std::to_string(report.casesPerProperty)},
                                    {"engine", report.engine},
                                    {"domain", report.domain},
                                    {"policy", report.policy},
                                    {"survey", std::string(report.survey ? "true" : "false")},
                                    {"max-size", std::to_string(report.maxSize)},
                                    {"rounds", std::to_string(report.rounds)},
                                    {"shard", report.shard}})
    out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, xmlEscaped(value));
  out += "    </properties>\n";
  if (saved) out += savedTestcase(*report.saved);
  for (const RunRow& row : report.rows) {
    out += fmt::format("    <testcase classname=\"tapecheck.{}\" name=\"{}\" time=\"{:.4f}\"", xmlEscaped(row.carrier),
                       xmlEscaped(row.property), row.run.ms / 1000);
    std::string counts = fmt::format("{} cases, {} compared, {} skipped, {} unsupported, domain {}, policy {}",
                                     row.run.cases, row.run.compared(), row.run.skipped, row.run.unsupported, row.domain,
                                     report.policy);
    if (row.run.passed()) {
      out += fmt::format("><system-out>{}</system-out></testcase>\n", counts);
      continue;
    }
    if (!row.run.failure) {
      out += fmt::format(">\n      <failure message=\"{}\" type=\"nothing-compared\">{}</failure>\n    </testcase>\n",
                         xmlEscaped(row.run.nothingCompared()), xmlEscaped(counts));
      continue;
    }
    const props::Counterexample& f = *row.run.failure;
    out += fmt::format(">\n      <failure message=\"{}\" type=\"counterexample\">{}\nsaved: {}\n</failure>\n    </testcase>\n",
                       xmlEscaped(f.verdict.why), xmlEscaped(row.listing), xmlEscaped(row.savedFile));
  }
  std::string coverage = coverageTable;
  for (const std::string& shortfall : report.coverageShortfalls) coverage += "coverage below floor on " + shortfall + "\n";
  for (const std::string& fault : report.coverageTagFaults) coverage += "coverage tags wrong on " + fault + "\n";
  for (const std::string& fault : report.accuracyOracleFaults) coverage += "accuracy oracle wrong on " + fault + "\n";
  out += fmt::format("    <system-out>{}</system-out>\n  </testsuite>\n</testsuites>\n", xmlEscaped(coverage));
  return out;
}

}  // namespace tc::cli
