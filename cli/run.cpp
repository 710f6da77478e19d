#include "cli/run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <type_traits>
#include <vector>

#include "cli/budget.h"
#include "cli/case_input.h"
#include "cli/engine_choice.h"
#include "cli/exit_codes.h"
#include "cli/output_files.h"
#include "cli/run_output.h"
#include "cli/run_report.h"
#include "cli/saved_failures.h"
#include "core/carriers/dispatch.h"
#include "core/io/document_format.h"
#include "core/ops/library.hpp"
#include "core/support/text.h"
#include "generators/coverage_corpus.h"
#include "properties/engines/profile_json.h"
#include "properties/oracles/accuracy_witnesses.h"
#include "properties/runner/report.h"

namespace tc::cli {
namespace {

//! Which rows this process runs: row r when r % count == index.
struct Shard {
  std::size_t index = 0, count = 1;
  bool runs(std::size_t row) const { return row % count == index; }
};

Result<std::size_t> parseCount(std::string_view text, std::string_view what) {
  std::size_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    return fail(fmt::format("{} must be a whole number, got {}", what, quote(text)));
  return value;
}

// --shard I/N, else GoogleTest's GTEST_SHARD_INDEX and GTEST_TOTAL_SHARDS, else everything.
Result<Shard> shardOf(const RunOptions& options) {
  std::string index, count;
  if (!options.shard.empty()) {
    auto slash = options.shard.find('/');
    if (slash == std::string::npos) return fail(fmt::format("--shard takes I/N, got {}", quote(options.shard)));
    index = options.shard.substr(0, slash), count = options.shard.substr(slash + 1);
  } else if (const char* i = std::getenv("GTEST_SHARD_INDEX"), *n = std::getenv("GTEST_TOTAL_SHARDS"); i && n) {
    index = i, count = n;
  } else {
    return Shard{};
  }
  auto i = parseCount(index, "the shard index");
  if (!i) return std::unexpected(i.error());
  auto n = parseCount(count, "the shard count");
  if (!n) return std::unexpected(n.error());
  if (*n == 0 || *i >= *n) return fail(fmt::format("shard {}/{}: the index must be below the count", *i, *n));
  return Shard{*i, *n};
}

//! A progress bar on stderr when it is a terminal.
class Progress {
 public:
  Progress(std::size_t total, bool enabled) : total_(total), enabled_(enabled && isatty(STDERR_FILENO)) {}
  void step(const std::string& what) {
    if (!enabled_) return;
    ++done_;
    std::size_t filled = done_ * 30 / std::max<std::size_t>(total_, 1);
    fmt::print(stderr, "\r[{:<30}] {}/{} {:<50}", std::string(filled, '='), done_, total_, what.substr(0, 50));
    if (done_ == total_) fmt::print(stderr, "\r{:<100}\r", "");
  }

 private:
  std::size_t total_, done_ = 0;
  bool enabled_;
};

//! The rows of a run, in order: (carrier, property, domain) for every property that applies, on the
//! carriers the profile supports; for an engine in another process, only the engine-scoped ones
//! (the others check tapecheck's own runtime). In the engine verdict each property is judged in the
//! domain verdictDomainOf gives it (an IEEE carrier's exact-domain rows first, then those on every
//! value); otherwise every row in the run's domain.
std::vector<PlannedRow> plannedRows(const RunOptions& options, const Judging& judging, const EngineSource& source) {
  const bool engineScopedOnly = source.external();
  std::vector<PlannedRow> rows;
  for (const std::string& carrier : kCarrierNames) {
    if (options.carrier != "all" && options.carrier != carrier) continue;
    if (!judging.profile.supportsCarrier(carrier) || !source.runsOn(carrier)) continue;
    withCarrier(carrier, [&]<class T>() {
      const std::vector<OpKind> drawn = judging.profile.opsOn(carrier).value_or(ops::opsSupportedBy<T>());
      std::vector<PlannedRow> onCarrier;
      for (const auto& property : props::propertiesFor<T>(judging.listedDomain()))
        if (options.property == property.name ||
            (options.property == "all" && !(engineScopedOnly && property.scope == props::Scope::runtime) &&
             props::appliesToOps(property, drawn)))
          onCarrier.push_back({carrier, std::string(property.name), judging.domainOf<T>(property.name)});
      std::ranges::stable_partition(onCarrier, [](const PlannedRow& r) { return r.domain == gen::Domain::exact; });
      rows.insert(rows.end(), onCarrier.begin(), onCarrier.end());
      return 0;
    });
  }
  return rows;
}

template <class T>
RowOutcome runRowOn(const PlannedRow& planned, const RunOptions& options, const EngineSource& source,
                    const Judging& judging, std::uint64_t seed, gen::CoverageTally& coverage,
                    props::FaultedCases& faultedCases) {
  const std::string& property = planned.property;
  const Engine<T>& engine = source.engine<T>();
  props::EngineUnderTest<T> subject{engine, judging.policy, judging.profile};
  subject.faultedCases = &faultedCases;
  props::RunSettings settings{options.cases, seed, options.maxSize, options.survey, planned.domain};
  RowOutcome outcome{RunRow{property, std::string(Carrier<T>::name),
                            props::runProperty(*props::findProperty<T>(property), subject, settings, &coverage), {}, {},
                            {}, {}},
                     {}, {}};
  RunRow& row = outcome.row;
  row.domain = std::string(gen::domainName(planned.domain));
  const JudgedBy judged{judging, row.domain, options.profileFile};
  if (options.survey) {
    saveSurveyKinds<T>(row, source, seed, options.saveDir, judged);
  } else if (row.run.failure) {
    outcome.failureReport = saveFailure<T>(row, source, seed, options.saveDir, judged);
    outcome.replayFlags = replayFlags(source, judged);
  }
  return outcome;
}

// The files the run will write, checked before it starts.
Result<void> checkOutputPaths(const RunOptions& options) {
  if (auto saves = checkDirectoryPath("--save-failures", options.saveDir); !saves) return saves;
  if (!options.jsonFile.empty())
    if (auto json = checkFilePath("--json", options.jsonFile); !json) return json;
  if (!options.junitFile.empty())
    if (auto junit = checkFilePath("--junit", options.junitFile); !junit) return junit;
  return {};
}

// The share of cases in each category per carrier, "!" where a floor is missed.
std::string formatCoverage(const std::vector<CarrierCoverage>& coverage) {
  std::vector<std::string> categories;
  std::map<std::string, double> floorOf;
  for (const auto& c : coverage) {
    auto listed = [&](const std::string& tag) { return std::ranges::find(categories, tag) != categories.end(); };
    for (const auto& floor : c.floors) {
      if (!listed(floor.tag)) categories.push_back(floor.tag);
      if (!floorOf.count(floor.tag)) floorOf[floor.tag] = floor.minShare;
    }
    for (const auto& [tag, count] : c.tally.counts())
      if (!listed(tag)) categories.push_back(tag);
  }
  // Columns as wide as their longest entry, so that every row lines up.
  std::size_t nameWidth = 24, columnWidth = 13;
  for (const std::string& tag : categories) nameWidth = std::max(nameWidth, tag.size());
  for (const auto& c : coverage) columnWidth = std::max(columnWidth, c.carrier.size());
  std::string out = fmt::format(
      "\ncoverage: share of generated cases per carrier (! a floor missed: a share below it with probability under {:g}, "
      "judged from {} cases)\n{:<{}}",
      gen::kFloorSignificance, gen::kMinCasesForFloors, "category", nameWidth);
  for (const auto& c : coverage) out += fmt::format(" {:>{}}", c.carrier, columnWidth);
  out += fmt::format(" {:>7}\n", "floor");
  for (const std::string& tag : categories) {
    out += fmt::format("{:<{}}", tag, nameWidth);
    for (const auto& c : coverage) {
      auto own = std::ranges::find_if(c.floors, [&](const auto& f) { return f.tag == tag; });
      const bool applies = own != c.floors.end();
      double share = 100.0 * c.tally.count(tag) / c.tally.cases();
      bool below = applies && c.tally.misses(*own);
      out += fmt::format(" {:>{}}", applies || c.tally.count(tag) ? fmt::format("{}{:.1f}%", below ? "! " : "", share) : "-",
                         columnWidth);
    }
    out += fmt::format(" {:>7}\n", floorOf.count(tag) ? fmt::format("{:g}%", 100 * floorOf[tag]) : "");
  }
  for (const auto& c : coverage) {
    if (c.tally.cases() < gen::kMinCasesForFloors) {
      out += fmt::format("coverage floors not judged on {}: {} cases (at least {} needed)\n", c.carrier, c.tally.cases(),
                         gen::kMinCasesForFloors);
      continue;
    }
    // Floors too small for this many cases: no count could show that the generator misses them.
    std::vector<std::string> rare;
    for (const auto& floor : c.floors)
      if (!c.tally.judges(floor))
        rare.push_back(fmt::format("{} ({:g}%: {} cases)", floor.tag, 100 * floor.minShare, gen::casesToJudge(floor.minShare)));
    if (!rare.empty())
      out += fmt::format("coverage floors not judged on {} from {} cases: {}\n", c.carrier, c.tally.cases(), fmt::join(rare, ", "));
  }
  return out;
}

// What the header says the engine verdict judges (docs/semantics.md §3.9).
constexpr std::string_view kVerdictHeading =
    "the engine verdict (rows marked (exact) on the exact domain, the others on every value)";
// What the header says the default run of tapecheck's own engines judges (Judging::exactRowsToo).
constexpr std::string_view kExactRowsTooHeading = "domain default (rows marked (exact) on the exact domain)";

// How often a run with --time-budget says how far it is, in seconds.
constexpr double kRoundLineSeconds = 30;

// Adds a later round's run of a row: its counts, and its counterexample's listing and file when
// the row had none.
void absorbRow(RunRow& row, RunRow&& later) {
  if (!row.run.failure && later.run.failure) row.savedFile = std::move(later.savedFile), row.listing = std::move(later.listing);
  row.run.absorb(later.run);
  row.saveErrors.insert(row.saveErrors.end(), later.saveErrors.begin(), later.saveErrors.end());
}

// Runs the shard's rows (`mine` of them) into `result`: one round with the run's seed, or with
// --time-budget rounds with seeds seed, seed + 1, ... until the time is spent (judged after each
// row, so the last round may end early; a row that failed is not run again). Prints each
// failure's report as it is found and, with a budget, a line per round.
void runRounds(const RunSession& session, const RunOptions& options, const Program& program, const Shard& shard,
               std::size_t mine, RunReport& result) {
  const std::vector<PlannedRow>& planned = session.rows();
  const Judging& judging = session.judging();
  const bool mixed = judging.mixesDomains();
  std::vector<std::optional<std::size_t>> reported(planned.size());  // where each row is in result.rows
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  bool spent = false;
  double lastLine = 0;
  for (result.rounds = 0; !spent; ++result.rounds) {
    const std::uint64_t seed = result.seed + result.rounds;
    Progress progress(mine, !options.quiet);
    std::size_t ran = 0, cases = 0;
    for (std::size_t r = 0; r < planned.size() && !spent; ++r) {
      if (!shard.runs(r) || (reported[r] && result.rows[*reported[r]].run.failure)) continue;
      const PlannedRow& row = planned[r];
      // Coverage per carrier, and where the run mixes domains per domain too (the exact domain's floors differ).
      const std::string label = mixed && row.domain == gen::Domain::exact ? row.carrier + " (exact)" : row.carrier;
      auto coverage = std::ranges::find(result.coverage, label, &CarrierCoverage::carrier);
      if (coverage == result.coverage.end()) {
        withCarrier(row.carrier, [&]<class T>() {
          result.coverage.push_back({label, {}, gen::coverageFloors<T>(props::caseOptionsFor<T>(judging.profile, row.domain))});
          return 0;
        });
        coverage = std::prev(result.coverage.end());
      }
      RowOutcome outcome = session.runRow(r, seed, coverage->tally);
      if (!outcome.failureReport.empty()) {
        std::string replay = outcome.row.savedFile.empty() ? ""
            : fmt::format("replay: {}\n", replayCommand(program.name, outcome.row.savedFile, outcome.replayFlags));
        fmt::print("{}{}rerun:  {} run --property {} --carrier {} {}{} --seed {} --cases {} --max-size {}\n",
                   outcome.failureReport, replay, program.name, row.property, row.carrier, session.source().flags(),
                   JudgedBy{judging, outcome.row.domain, options.profileFile}.flags(), seed, options.cases,
                   options.maxSize);
      }
      ++ran, cases += outcome.row.run.cases;
      if (reported[r]) {
        absorbRow(result.rows[*reported[r]], std::move(outcome.row));
      } else {
        reported[r] = result.rows.size();
        result.rows.push_back(std::move(outcome.row));
        result.rows.back().domainShown = mixed;
      }
      progress.step(row.property + " " + row.carrier);
      spent = options.timeBudget > 0 && elapsed() >= options.timeBudget;
    }
    if (ran == 0) break;  // every row has failed: nothing is left to run (and this is no round)
    if (options.timeBudget == 0) spent = true;  // else until the budget is spent
    // A progress line for the first round, the last, and one every kRoundLineSeconds between.
    const double now = elapsed();
    if (options.timeBudget > 0 && !options.quiet && (result.rounds == 0 || spent || now - lastLine >= kRoundLineSeconds)) {
      fmt::print("round {}: seed {}, {} row{}, {} cases; {:.1f} s of {:g} s\n", result.rounds + 1, seed, ran,
                 ran == 1 ? "" : "s", cases, now, options.timeBudget);
      std::fflush(stdout);
      lastLine = now;
    }
  }
  result.seconds = elapsed();
}

}  // namespace

RunSession::RunSession(const RunOptions& options, std::unique_ptr<EngineSource> source, Judging judging)
    : options_(options), source_(std::move(source)), judging_(std::move(judging)) {
  rows_ = plannedRows(options_, judging_, *source_);
}

RunSession::~RunSession() = default;

Result<std::unique_ptr<RunSession>> RunSession::open(const RunOptions& options, const Program& program) {
  auto names = props::allPropertyNames();
  if (options.property != "all" && std::find(names.begin(), names.end(), options.property) == names.end())
    return fail(fmt::format("no property named {}; the properties are: {}", quote(options.property), fmt::join(names, ", ")));
  if (auto where = checkOutputPaths(options); !where) return std::unexpected(where.error());
  auto source =
      EngineSource::open({options.engine, options.engineCommand, options.engineTimeout, options.isolate, options.engineLog},
                         program.engines);
  if (!source) return std::unexpected(source.error());
  auto judging = readJudging(options.policy, options.domain.empty() ? "default" : options.domain, options.profileFile,
                             (*source)->hello());
  if (!judging) return std::unexpected(judging.error());
  // The engine verdict: an engine not tapecheck's own, judged where it can be (no --domain; a survey
  // tallies conventions on the default domain).
  judging->verdict = options.domain.empty() && (*source)->external() && !options.survey;
  judging->exactRowsToo = options.domain.empty() && !(*source)->external() && !options.survey;
  std::unique_ptr<RunSession> session(new RunSession(options, std::move(*source), std::move(*judging)));
  if (session->rows_.empty())
    return fail(fmt::format("property {} does not apply to carrier {}{}", options.property, options.carrier,
                            session->judging_.profile.carriers.empty() ? "" : " among the profile's carriers"));
  return session;
}

RowOutcome RunSession::runRow(std::size_t r, std::uint64_t seed, gen::CoverageTally& coverage) const {
  assert(r < rows_.size());
  RowOutcome outcome;
  withCarrier(rows_[r].carrier, [&]<class T>() {
    outcome = runRowOn<T>(rows_[r], options_, *source_, judging_, seed, coverage, faultedCases_);
    return 0;
  });
  return outcome;
}

SavedReport RunSession::replaySaved(const std::vector<bool>& runs) const {
  assert(runs.empty() || runs.size() == rows_.size());
  std::vector<PlannedRow> judged;
  for (std::size_t r = 0; r < rows_.size(); ++r)
    if (runs.empty() || runs[r]) judged.push_back(rows_[r]);
  return replaySavedFailures(options_.corpus.empty() ? options_.saveDir : options_.corpus, judged, *source_, judging_,
                             options_.profileFile, BudgetOptions{});
}

int runProperties(const RunOptions& options, const Program& program) {
  auto shard = shardOf(options);
  if (!shard) return report(kUsage, "run: " + shard.error().message);
  auto session = RunSession::open(options, program);
  if (!session) return report(kUsage, "run: " + session.error().message);
  const EngineSource* source = &(*session)->source();
  const Judging* judging = &(*session)->judging();
  const EngineProfile& profile = judging->profile;
  const bool verdict = judging->verdict;
  const std::vector<PlannedRow>& planned = (*session)->rows();
  // Rows of the exact domain beside the default's (Judging::exactRowsToo), which the header then names.
  const bool exactRows = judging->exactRowsToo &&
                         std::ranges::any_of(planned, [](const PlannedRow& r) { return r.domain == gen::Domain::exact; });

  RunReport result;
  result.seed = options.seed.value_or(clockSeed());
  result.casesPerProperty = options.cases, result.maxSize = options.maxSize, result.timeBudget = options.timeBudget;
  result.engine = source->command().empty() ? source->name() : source->command();
  result.policy = props::policyName(judging->policy), result.survey = options.survey;
  result.domain = verdict ? "engine verdict" : options.domain.empty() ? "default" : options.domain;
  result.profile = profileToJson(profile);
  result.shard = fmt::format("{}/{}", shard->index, shard->count);
  std::size_t mine = 0;
  for (std::size_t r = 0; r < planned.size(); ++r) mine += shard->runs(r);
  if (mine == 0)  // a shard past the rows would pass having run nothing
    return report(kUsage, fmt::format("run: shard {}/{} has no rows: the run has {} row{}", shard->index, shard->count,
                                      planned.size(), planned.size() == 1 ? "" : "s"));
  if (!options.quiet)
    fmt::print("{} run: {} cases per property, seed {}, engine {}{}, {}, policy {}{}, max size {}{}{}\n",
               program.name, options.cases, result.seed, source->description(),
               options.profileFile.empty() ? "" : fmt::format(" (profile {})", profile.name),
               verdict                 ? std::string(kVerdictHeading)
               : exactRows             ? std::string(kExactRowsTooHeading)
                                       : "domain " + result.domain, result.policy, options.survey ? ", survey" : "",
               options.maxSize,
               options.timeBudget > 0
                   ? fmt::format(", time budget {:g} s (rounds with seeds {}, {}, ...)", options.timeBudget, result.seed,
                                 result.seed + 1)
                   : "",
               shard->count > 1 ? fmt::format(", shard {}: {} of {} rows", result.shard, mine, planned.size()) : "");

  if ((*session)->replaysSaved()) {
    std::vector<bool> runs(planned.size());
    for (std::size_t r = 0; r < planned.size(); ++r) runs[r] = shard->runs(r);
    result.saved = (*session)->replaySaved(runs);
    if (!result.saved->empty() || (!options.quiet && result.saved->others))
      fmt::print("{}", formatSavedReport(
                           *result.saved,
                           [&](const SavedCase& saved) {
                             return replayCommand(program.name, shellWord(saved.file), saved.replayFlags);
                           },
                           options.quiet));
  }

  runRounds(**session, options, program, *shard, mine, result);
  for (const auto& c : result.coverage)
    for (const std::string& shortfall : c.tally.shortfalls(c.floors)) result.coverageShortfalls.push_back(c.carrier + ": " + shortfall);
  // The floors are only as good as the tags that count them: checked against the hand-tagged corpus.
  std::set<std::string> tagsChecked;
  for (const auto& c : result.coverage) {
    const std::string carrier = c.carrier.substr(0, c.carrier.find(" ("));  // "double (exact)": double's tags
    if (tagsChecked.insert(carrier).second)
      for (const std::string& fault : gen::coverageCorpusDisagreements(carrier))
        result.coverageTagFaults.push_back(carrier + ": " + fault);
  }

  // The accuracy verdicts are only as good as the budgets: the oracle's own witnesses, on each IEEE
  // carrier a row judged accuracy on.
  for (const std::string carrier : {"double", "float"})
    if (std::ranges::any_of(result.rows, [&](const RunRow& r) { return r.property == "accuracy" && r.carrier == carrier; }))
      withCarrier(carrier, [&]<class T>() {
        if constexpr (std::is_floating_point_v<T>)
          for (const std::string& fault : props::accuracyWitnessFaults<T>()) result.accuracyOracleFaults.push_back(fault);  // "add on double: ..."
        return 0;
      });

  std::string coverageTable = formatCoverage(result.coverage);
  if (!options.quiet) fmt::print("{}{}", formatTable(result.rows), coverageTable);
  if (options.survey) fmt::print("{}", formatSurvey(result.rows));
  for (const std::string& shortfall : result.coverageShortfalls) fmt::print("coverage below floor on {}\n", shortfall);
  for (const std::string& fault : result.coverageTagFaults)
    fmt::print("coverage tags wrong on {} (a fault in tapecheck's coverage tags: its floors cannot be trusted)\n", fault);
  for (const std::string& fault : result.accuracyOracleFaults)
    fmt::print("accuracy oracle wrong on {} (a fault in tapecheck's accuracy oracle: its verdicts cannot be trusted)\n", fault);
  std::size_t total = 0, failed = 0, compared = 0;
  for (const RunRow& r : result.rows) total += r.run.cases, failed += !r.run.passed(), compared += r.run.compared();
  const std::size_t again = result.saved ? result.saved->count(SavedCase::Outcome::stillFails) : 0;
  std::string outcome = failed ? fmt::format("{} FAILED", failed) : again ? "" : std::string("all passed");
  if (again)
    outcome += fmt::format("{}{} saved counterexample{} still fail{}", failed ? ", " : "", again, again == 1 ? "" : "s",
                           again == 1 ? "s" : "");
  if (!result.coverageShortfalls.empty()) outcome += ", coverage below floor";
  if (!result.coverageTagFaults.empty()) outcome += ", coverage tags wrong";
  if (!result.accuracyOracleFaults.empty()) outcome += ", accuracy oracle wrong";
  const std::string seeds = result.rounds == 1 ? fmt::format("seed {}", result.seed)
                            : fmt::format("seeds {} to {} ({} rounds)", result.seed, result.seed + result.rounds - 1,
                                          result.rounds);
  fmt::print("{}{} properties x carriers, {} cases in {:.2f} s ({:.0f} cases/s), {}: {}\n", options.quiet ? "" : "\n",
             result.rows.size(), total, result.seconds, total / std::max(result.seconds, 1e-9), seeds, outcome);
  std::size_t errors = reportSaveErrors(result.rows);
  if (!options.jsonFile.empty())
    if (auto written = writeWhole(options.jsonFile, runReportJson(result)); !written)
      ++errors, report(kUsage, "run: --json: " + written.error().message);
  if (!options.junitFile.empty())
    if (auto written = writeWhole(options.junitFile, runReportJunit(result, coverageTable)); !written)
      ++errors, report(kUsage, "run: --junit: " + written.error().message);
  if (errors) return kUsage;
  if (reportShrinkerFault(result.rows, "run")) return kUsage;
  // Each row that compared nothing fails; a run in which no row compared anything checked nothing
  // at all (an engine that supports none of the cases, a profile or domain that leaves none): an
  // error, as CI must not take it for a verdict (docs/threat-model.md §4).
  if (compared == 0)
    return report(kUsage, fmt::format("run: nothing was compared: none of the {} case{} of the {} row{} ran a comparison "
                                      "({} on {}: {})",
                                      total, total == 1 ? "" : "s", result.rows.size(), result.rows.size() == 1 ? "" : "s",
                                      result.rows.front().property, result.rows.front().carrierLabel(),
                                      result.rows.front().run.nothingCompared()));
  return result.passed() ? kSuccess : kFailed;
}

}  // namespace tc::cli
