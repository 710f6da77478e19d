#include "cli/run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <vector>

#include "core/carriers/dispatch.h"
#include "cli/exit_codes.h"
#include "core/io/document_format.h"
#include "core/io/listing.h"
#include "core/support/text.h"
#include "core/spec/reference.h"
#include "properties/runner.h"

namespace tc::cli {
namespace {

//! One row of the result table.
struct Row {
  std::string property, carrier;
  props::PropertyRun run;
};

//! The coverage of one carrier's generated cases, and the floors they must reach.
struct CarrierCoverage {
  std::string carrier;
  gen::CoverageTally tally;
  std::vector<gen::CoverageFloor> floors;
};

// The shrunk counterexample as a listing: values and seeds per position, then both sides of the
// comparison wherever they differ.
template <class T>
void printCounterexample(const props::Counterexample& failure) {
  auto loaded = parseCase<T>(failure.shrunk.dump());
  if (!loaded || !loaded->inputs) return;
  ListingNotes notes;
  const props::Verdict& verdict = failure.verdict;
  std::size_t width = std::max(verdict.leftName.size(), verdict.rightName.size());
  for (const auto& d : verdict.differences)
    notes[d.position] = {fmt::format("{:<{}}  {}   <- differs", verdict.leftName, width, d.left),
                         fmt::format("{:<{}}  {}", verdict.rightName, width, d.right)};
  auto context = spec::eval(loaded->graph, *loaded->inputs, loaded->data);
  if (context) fmt::print("{}", formatListing(loaded->graph, {{"value", *context}, {"seed", loaded->seeds}}, notes));
  else fmt::print("{}\n  (eval fails: {})\n", formatListing<T>(loaded->graph, {{"seed", loaded->seeds}}, notes),
                  context.error().message);
}

// Prints the shrunk counterexample, saves it, and prints how to replay it and rerun the run.
template <class T>
void reportFailure(std::string_view property, std::string_view engine, props::Counterexample failure,
                   std::uint64_t runSeed, const RunOptions& options) {
  const std::string_view carrier = Carrier<T>::name;
  fmt::print("\n{} failed on {} with engine {} (shrunk in {} steps from {} to {} nodes):\n  {}\n", property, carrier,
             engine, failure.shrinkSteps, failure.original["nodes"].size(), failure.shrunk["nodes"].size(),
             failure.verdict.why);
  printCounterexample<T>(failure);
  nlohmann::json saved = failure.shrunk;
  saved["failure"] = {{"property", property}, {"carrier", carrier}, {"engine", engine}, {"seed", runSeed},
                      {"why", failure.verdict.why}};
  std::error_code ignored;
  std::filesystem::create_directories(options.saveDir, ignored);
  std::string file = fmt::format("{}/{}-{}-{}.json", options.saveDir, property, carrier, runSeed);
  if (std::ofstream out(file); out << formatCaseDocument(saved)) fmt::print("saved: {}\n", file);
  else fmt::print("could not save the counterexample to {}\n", file);
  fmt::print("replay: tapecheck grad {} --carrier {}\nrerun:  tapecheck run --property {} --carrier {} --engine {} --seed {} --cases {}\n",
             file, carrier, property, carrier, engine, runSeed, options.cases);
}

template <class T>
void runCarrier(const RunOptions& options, std::uint64_t runSeed, std::vector<Row>& rows,
                std::vector<CarrierCoverage>& coverage) {
  const Engine<T>& engine = builtinEngine<T>(options.engine);
  CarrierCoverage carrierCoverage{std::string(Carrier<T>::name), {}, gen::coverageFloors<T>()};
  for (const auto& property : props::propertiesFor<T>()) {
    if (options.property != "all" && options.property != property.name) continue;
    Row row{std::string(property.name), std::string(Carrier<T>::name),
            props::runProperty(property, engine, options.cases, runSeed, &carrierCoverage.tally)};
    if (row.run.failure) reportFailure<T>(property.name, engine.name(), *row.run.failure, runSeed, options);
    rows.push_back(std::move(row));
  }
  if (carrierCoverage.tally.cases() > 0) coverage.push_back(std::move(carrierCoverage));
}

void printResults(const std::vector<Row>& rows) {
  fmt::print("\n{:<42} {:<14} {:>6} {:>8} {:>7} {:>10}\n", "property", "carrier", "cases", "skipped", "result", "time ms");
  for (const Row& r : rows)
    fmt::print("{:<42} {:<14} {:>6} {:>8} {:>7} {:>10.1f}\n", r.property, r.carrier, r.run.cases, r.run.skipped,
               r.run.failure ? "FAIL" : "pass", r.run.ms);
}

// The share of cases in each category per carrier, "!" where a floor is missed; returns whether
// every floor holds.
bool printCoverage(const std::vector<CarrierCoverage>& coverage) {
  std::vector<std::string> categories;
  std::map<std::string, double> floorOf;
  for (const auto& c : coverage) {
    for (const auto& floor : c.floors)
      if (!floorOf.count(floor.tag)) categories.push_back(floor.tag), floorOf[floor.tag] = floor.minShare;
    for (const auto& [tag, count] : c.tally.counts())
      if (std::find(categories.begin(), categories.end(), tag) == categories.end()) categories.push_back(tag);
  }
  fmt::print("\ncoverage: share of generated cases per carrier (floors judged from {} cases)\n{:<24}",
             gen::kMinCasesForFloors, "category");
  for (const auto& c : coverage) fmt::print(" {:>13}", c.carrier);
  fmt::print(" {:>7}\n", "floor");
  for (const std::string& tag : categories) {
    fmt::print("{:<24}", tag);
    for (const auto& c : coverage) {
      bool applies = std::any_of(c.floors.begin(), c.floors.end(), [&](const auto& f) { return f.tag == tag; });
      double share = 100.0 * c.tally.count(tag) / c.tally.cases();
      bool below = applies && c.tally.cases() >= gen::kMinCasesForFloors && share < 100 * floorOf[tag];
      fmt::print(" {:>13}", applies || c.tally.count(tag) ? fmt::format("{}{:.1f}%", below ? "! " : "", share) : "-");
    }
    fmt::print(" {:>7}\n", floorOf.count(tag) ? fmt::format("{:g}%", 100 * floorOf[tag]) : "");
  }
  bool ok = true;
  for (const auto& c : coverage) {
    if (c.tally.cases() < gen::kMinCasesForFloors)
      fmt::print("coverage floors not judged on {}: {} cases (at least {} needed)\n", c.carrier, c.tally.cases(),
                 gen::kMinCasesForFloors);
    for (const std::string& shortfall : c.tally.shortfalls(c.floors)) {
      fmt::print("coverage below floor on {}: {}\n", c.carrier, shortfall);
      ok = false;
    }
  }
  return ok;
}

}  // namespace

int runProperties(const RunOptions& options) {
  auto names = props::allPropertyNames();
  if (options.property != "all" && std::find(names.begin(), names.end(), options.property) == names.end())
    return report(kUsage, fmt::format("run: no property named {}; the properties are: {}", quote(options.property),
                                      fmt::join(names, ", ")));
  std::uint64_t runSeed = options.seed.value_or(
      static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007ULL);
  fmt::print("tapecheck run: {} cases per property, seed {}, engine {}\n", options.cases, runSeed, options.engine);
  std::vector<Row> rows;
  std::vector<CarrierCoverage> coverage;
  auto start = std::chrono::steady_clock::now();
  for (const std::string& carrier : kCarrierNames) {
    if (options.carrier != "all" && options.carrier != carrier) continue;
    withCarrier(carrier, [&]<class T>() {
      runCarrier<T>(options, runSeed, rows, coverage);
      return 0;
    });
  }
  if (rows.empty())
    return report(kUsage, fmt::format("run: property {} does not apply to carrier {}", options.property, options.carrier));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  printResults(rows);
  bool covered = printCoverage(coverage);
  std::size_t total = 0, failed = 0;
  for (const Row& r : rows) total += r.run.cases, failed += r.run.failure.has_value();
  std::string verdict = failed ? fmt::format("{} FAILED", failed) : std::string("all passed");
  if (!covered) verdict += ", coverage below floor";
  fmt::print("\n{} properties x carriers, {} cases in {:.2f} s ({:.0f} cases/s), seed {}: {}\n", rows.size(), total,
             seconds, total / seconds, runSeed, verdict);
  return failed || !covered ? kFailed : kSuccess;
}

}  // namespace tc::cli
