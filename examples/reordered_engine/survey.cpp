// Maps the reordered engine's differences from the reference, as an engine author would before
// writing its profile: every engine property in survey mode on double and float, then the same
// run in the exact domain under `values`, where it must pass.
//   reordered_survey [--cases N] [--seed S]
// Exit status 0 when the exact-domain run passes, 1 otherwise.
#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "properties/runner/report.h"
#include "properties/runner/runner.h"
#include "reordered_engine/reordered_engine.h"

namespace {

// The survey lines of every engine property on T in the default domain under bits.
template <class T>
std::string survey(const tc::EngineProfile& profile, const tc::props::RunSettings& settings) {
  reordered::Engine<T> engine;
  tc::props::EngineUnderTest<T> subject{engine, tc::props::Policy::bits, profile};
  std::string lines;
  for (const auto& property : tc::props::propertiesFor<T>()) {
    if (property.scope != tc::props::Scope::engine) continue;
    lines += tc::props::formatSurveyLines(property.name, tc::Carrier<T>::name,
                                          tc::props::runProperty(property, subject, settings));
  }
  return lines;
}

// The rows of every engine property on T in the exact domain under values; counts the failures.
template <class T>
std::string exactRun(const tc::EngineProfile& profile, tc::props::RunSettings settings, int& failures) {
  reordered::Engine<T> engine;
  tc::props::EngineUnderTest<T> subject{engine, tc::props::Policy::values, profile};
  settings.domain = tc::gen::Domain::exact;
  std::string rows;
  for (const auto& property : tc::props::propertiesFor<T>(tc::gen::Domain::exact)) {
    if (property.scope != tc::props::Scope::engine) continue;
    tc::props::PropertyRun run = tc::props::runProperty(property, subject, settings);
    failures += !run.passed();
    rows += fmt::format("{:<42} {:<8} {:>6} {:>8}  {}\n", property.name, tc::Carrier<T>::name, run.cases,
                        run.compared(), run.passed() ? "pass" : "FAIL");
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  tc::props::RunSettings settings{1000, 1};
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--cases") settings.cases = std::strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--seed") settings.seed = std::strtoull(argv[i + 1], nullptr, 10);
  }
  settings.survey = true;
  const tc::EngineProfile profile = reordered::profile();
  fmt::print("survey of the reordered engine: default domain, policy bits, {} cases per property, seed {}\n",
             settings.cases, settings.seed);
  fmt::print("{}{}{}", tc::props::surveyHeading(), survey<double>(profile, settings), survey<float>(profile, settings));
  settings.survey = false;
  int failures = 0;
  fmt::print("\nexact domain, policy values:\n{:<42} {:<8} {:>6} {:>8}  {}\n", "property", "carrier", "cases", "compared",
             "result");
  fmt::print("{}", exactRun<double>(profile, settings, failures) + exactRun<float>(profile, settings, failures));
  return failures == 0 ? 0 : 1;
}
