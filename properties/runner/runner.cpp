#include "properties/runner/runner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cassert>

#include "properties/runner/report.h"

#include "core/carriers/rational.h"

namespace tc::props {
namespace {

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

}  // namespace

std::uint64_t caseSeed(std::uint64_t runSeed, std::string_view property, std::string_view carrier, std::size_t index) {
  return mix(mix(runSeed, nameHash(property)), mix(nameHash(carrier), index));
}

namespace {

// "2 skipped: <reason>, 1 unsupported: op exp"
std::string notComparedReasons(const PropertyRun& run) {
  std::vector<std::string> reasons;
  for (const auto& [reason, count] : run.skipReasons) reasons.push_back(fmt::format("{} skipped: {}", count, reason));
  for (const auto& [op, count] : run.unsupportedOps) reasons.push_back(fmt::format("{} unsupported: op {}", count, op));
  return fmt::format("{}", fmt::join(reasons, ", "));
}

}  // namespace

std::string PropertyRun::nothingCompared() const {
  if (compared() > 0 || failed > 0) return {};
  if (cases == 0) return "nothing compared: no cases ran";
  return fmt::format("nothing compared: {} of {} cases ({})", cases, cases, notComparedReasons(*this));
}

std::string PropertyRun::partlyCompared() const {
  if (compared() == 0 || compared() == cases) return {};
  return fmt::format("{} of {} cases not compared ({})", cases - compared(), cases, notComparedReasons(*this));
}

std::string PropertyRun::whyNotPassed() const {
  if (failure) return failure->verdict.why + "\n" + failure->shrunk.dump();
  return nothingCompared();
}

void PropertyRun::absorb(const PropertyRun& later) {
  assert(kinds.empty() && later.kinds.empty() && "a survey's kinds are not merged");
  cases += later.cases, skipped += later.skipped, unsupported += later.unsupported, failed += later.failed;
  underDeviation += later.underDeviation, ms += later.ms;
  for (const auto& [reason, count] : later.skipReasons) skipReasons[reason] += count;
  for (const auto& [op, count] : later.unsupportedOps) unsupportedOps[op] += count;
  for (const auto& [name, measure] : later.measures) measures[name].widen(measure);
  if (!failure && later.failure) failure = later.failure;
}

std::vector<std::string_view> allPropertyNames() {
  // The rational carrier has every property but the exact domain's oracle, which is double's.
  std::vector<std::string_view> names;
  for (const auto& property : propertiesFor<Rational>()) names.push_back(property.name);
  for (const auto& property : propertiesFor<double>(gen::Domain::exact))
    if (std::find(names.begin(), names.end(), property.name) == names.end()) names.push_back(property.name);
  return names;
}

}  // namespace tc::props

namespace tc::props {

std::string surveyHeading() {
  return fmt::format("{:<42} {:<8} {:<18} {:<16} {:>6}  {}\n", "property", "carrier", "op", "difference", "cases",
                     "example");
}

std::string formatSurveyLines(std::string_view property, std::string_view carrier, const PropertyRun& run,
                              const std::vector<std::string>& saved) {
  std::string out;
  for (std::size_t k = 0; k < run.kinds.size(); ++k) {
    const FailureKind& kind = run.kinds[k];
    out += fmt::format("{:<42} {:<8} {:<18} {:<16} {:>6}  {}\n", property, carrier, kind.label(), kind.difference, kind.cases,
                       k < saved.size() ? saved[k] : "(not saved)");
  }
  return out;
}

std::string blameMeaning(const Verdict& verdict) {
  constexpr std::size_t kLongest = 160;  // a legend line, not the whole message
  if (verdict.why.size() <= kLongest) return "blamed by the failure: " + verdict.why;
  std::size_t cut = kLongest;
  while (cut > 0 && (static_cast<unsigned char>(verdict.why[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return "blamed by the failure: " + verdict.why.substr(0, cut) + " …";
}

std::set<std::size_t> blamedPositions(const Verdict& verdict) {
  std::set<std::size_t> positions = verdict.blamed;
  for (const auto& d : verdict.differences) positions.insert(d.position);
  return positions;
}

}  // namespace tc::props
