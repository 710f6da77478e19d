#include "cli/run.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <vector>

#include "cli/carrier_dispatch.h"
#include "cli/exit_codes.h"
#include "core/io/listing.h"
#include "generators/case_gen.hpp"
#include "properties/all.h"

namespace tc::cli {
namespace {

//! One row of the result table.
struct Row {
  std::string property, carrier;
  std::size_t cases = 0, skipped = 0;
  bool passed = true;
  double ms = 0;
};

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  return z ^ (z >> 27);
}

std::uint64_t nameHash(std::string_view name) {
  std::uint64_t h = 1469598103934665603ULL;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

template <class T>
props::Verdict verdictOn(const props::NamedProperty<T>& property, const nlohmann::json& doc) {
  auto loaded = parseCase<T>(doc.dump());
  if (!loaded) return props::Verdict::fail("generator bug, the case does not load: " + loaded.error().message);
  return property.check(*loaded);
}

// Shrinks a failing case, prints it, saves it, and prints how to reproduce the run.
template <class T>
void reportFailure(const props::NamedProperty<T>& property, const nlohmann::json& failing, std::uint64_t runSeed,
                   const RunOptions& options) {
  auto [small, steps] = gen::shrinkWhile<T>(failing, [&](const nlohmann::json& doc) { return !verdictOn(property, doc).holds; });
  props::Verdict verdict = verdictOn(property, small);
  auto loaded = parseCase<T>(small.dump());
  fmt::print("\n{} failed on {} (shrunk in {} steps to {} nodes):\n  {}\n", property.name, Carrier<T>::name, steps,
             small["nodes"].size(), verdict.why);
  if (loaded && loaded->inputs) {
    auto context = spec::eval(loaded->graph, *loaded->inputs, loaded->data);
    if (context) fmt::print("{}", formatListing(loaded->graph, {{"value", *context}, {"seed", loaded->seeds}}));
  }
  small["failure"] = {{"property", property.name}, {"carrier", Carrier<T>::name}, {"seed", runSeed}, {"why", verdict.why}};
  std::filesystem::create_directories(options.saveDir);
  std::string file = fmt::format("{}/{}-{}-{}.json", options.saveDir, property.name, Carrier<T>::name, runSeed);
  std::ofstream(file) << small.dump(2) << "\n";
  fmt::print("saved: {}\nreplay: tapecheck grad {} --carrier {}\nrerun:  tapecheck run --property {} --carrier {} --seed {} --cases {}\n",
             file, file, Carrier<T>::name, property.name, Carrier<T>::name, runSeed, options.cases);
}

template <class T>
void runCarrier(const RunOptions& options, std::uint64_t runSeed, std::vector<Row>& rows) {
  for (const auto& property : props::propertiesFor<T>()) {
    if (options.property != "all" && options.property != property.name) continue;
    Row row{std::string(property.name), std::string(Carrier<T>::name)};
    auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < options.cases && row.passed; ++i) {
      std::uint64_t caseSeed = mix(mix(runSeed, nameHash(property.name)), mix(nameHash(Carrier<T>::name), i));
      nlohmann::json doc = gen::randomCase<T>(caseSeed, static_cast<int>(i * 100 / std::max<std::size_t>(options.cases, 1)));
      props::Verdict verdict = verdictOn(property, doc);
      ++row.cases;
      if (!verdict.skipped.empty()) ++row.skipped;
      if (!verdict.holds) {
        row.passed = false;
        reportFailure(property, doc, runSeed, options);
      }
    }
    row.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    rows.push_back(row);
  }
}

}  // namespace

int runProperties(const RunOptions& options) {
  std::uint64_t runSeed = options.seed.value_or(
      static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007ULL);
  fmt::print("tapecheck run: {} cases per property, seed {}\n", options.cases, runSeed);
  std::vector<Row> rows;
  auto start = std::chrono::steady_clock::now();
  for (const std::string& carrier : kCarrierNames) {
    if (options.carrier != "all" && options.carrier != carrier) continue;
    withCarrier(carrier, [&]<class T>() {
      runCarrier<T>(options, runSeed, rows);
      return 0;
    });
  }
  if (rows.empty()) return report(kUsage, fmt::format("run: no property named '{}' applies to the chosen carriers", options.property));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::size_t total = 0, failed = 0;
  fmt::print("\n{:<42} {:<14} {:>6} {:>8} {:>7} {:>10}\n", "property", "carrier", "cases", "skipped", "result", "time ms");
  for (const Row& r : rows) {
    fmt::print("{:<42} {:<14} {:>6} {:>8} {:>7} {:>10.1f}\n", r.property, r.carrier, r.cases, r.skipped,
               r.passed ? "pass" : "FAIL", r.ms);
    total += r.cases;
    failed += !r.passed;
  }
  fmt::print("\n{} properties x carriers, {} cases in {:.2f} s ({:.0f} cases/s), seed {}: {}\n", rows.size(), total,
             seconds, total / seconds, runSeed, failed ? fmt::format("{} FAILED", failed) : std::string("all passed"));
  return failed ? kFailed : kSuccess;
}

}  // namespace tc::cli
