// Checks minigrad with tapecheck's engine-scoped properties on the rational and double carriers:
//   minigrad_check [--cases N] [--seed S] [--bug]
// Exit status 0 when every property holds, 1 with a shrunk counterexample otherwise.
#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "core/carriers/rational.h"
#include "minigrad.h"
#include "properties/report.h"
#include "properties/runner.h"

namespace {

template <class T>
int checkOn(const tc::Engine<T>& engine, const tc::props::RunSettings& settings) {
  int failures = 0;
  for (const auto& property : tc::props::propertiesFor<T>()) {
    if (property.scope != tc::props::Scope::engine) continue;  // the others check tapecheck's own runtime
    tc::props::PropertyRun run = tc::props::runProperty(property, engine, settings);
    fmt::print("{:<42} {:<9} {:>5} cases {:>5} compared  {}\n", property.name, tc::Carrier<T>::name, run.cases,
               run.compared(), run.passed() ? "pass" : "FAIL");
    if (run.passed()) continue;
    ++failures;
    if (!run.failure) {
      fmt::print("  {}\n", run.nothingCompared());
      continue;
    }
    const tc::props::Counterexample& failure = *run.failure;
    fmt::print("  {}\n  shrunk in {} steps from {} to {} nodes:\n{}", failure.verdict.why, failure.shrinkSteps,
               failure.original["nodes"].size(), failure.shrunk["nodes"].size(),
               tc::props::formatCaseListing<T>(failure.shrunk, failure.verdict));
    fmt::print("  as a case file (replay with: tapecheck replay FILE --carrier {}):\n  {}\n", tc::Carrier<T>::name,
               failure.shrunk.dump());
  }
  return failures;
}

bool isNumber(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos && text != "0";
}

}  // namespace

int main(int argc, char** argv) {
  tc::props::RunSettings settings{100, 1, 100};
  bool bug = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--bug") bug = true;
    else if ((arg == "--cases" || arg == "--seed") && i + 1 < argc && isNumber(argv[i + 1]))
      (arg == "--cases" ? settings.cases : settings.seed) = std::strtoull(argv[++i], nullptr, 10);
    else {
      fmt::print(stderr, "usage: minigrad_check [--cases N] [--seed S] [--bug]\n");
      return 2;
    }
  }
  int failures = checkOn(minigrad::Engine<tc::Rational>(bug), settings) + checkOn(minigrad::Engine<double>(bug), settings);
  fmt::print("{}\n", failures ? fmt::format("{} properties failed", failures) : std::string("minigrad passes every engine property"));
  return failures ? 1 : 0;
}
