// tapecheck under GoogleTest (integrations/gtest.h): each test is one row of `run`, run through
// cli::RunSession, so that its cases, shrinking, saved file and verdict are the command's.
#include "integrations/gtest.h"
#include "cli/unsigned_option.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <source_location>
#include <string>

#include "cli/case_commands.h"
#include "cli/engine_choice.h"
#include "cli/run.h"
#include "cli/run_output.h"
#include "core/support/text.h"

namespace tc::gtest {
namespace {

// A variable's value; unset and empty are the same (a ctest ENVIRONMENT entry can only blank one).
std::optional<std::string> variable(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

// The whole number a variable holds, between low and high; nullopt when unset.
Result<std::optional<std::uint64_t>> number(const char* name, std::uint64_t low, std::uint64_t high) {
  auto text = variable(name);
  if (!text) return std::optional<std::uint64_t>();
  std::optional<std::uint64_t> value = cli::wholeNumber(*text);
  if (!value || *value < low || *value > high)
    return fail(fmt::format("{} must be a whole number from {} to {}, got {}", name, low, high, quote(*text)));
  return value;
}

// TAPECHECK_DOMAIN: empty for the engine verdict, else default or exact.
Result<std::string> domainVariable() {
  std::string domain = variable("TAPECHECK_DOMAIN").value_or("");
  if (domain.empty() || domain == "default" || domain == "exact") return domain;
  return fail(fmt::format("TAPECHECK_DOMAIN must be default or exact (unset: the engine verdict), got {}", quote(domain)));
}

// TAPECHECK_ISOLATE: 1 or 0; unset, the engine is isolated as `run` isolates it.
Result<std::optional<bool>> isolateVariable() {
  auto isolate = number("TAPECHECK_ISOLATE", 0, 1);
  if (!isolate) return fail("TAPECHECK_ISOLATE must be 1 (the engine in a forked copy of the test program) or 0 (in "
                            "the test's process), got " + quote(variable("TAPECHECK_ISOLATE").value_or("")));
  if (!*isolate) return std::optional<bool>();
  return std::optional<bool>(**isolate == 1);
}

// A test's options from the environment (integrations/gtest.h lists the variables); an error
// names the variable.
Result<cli::RunOptions> optionsFromEnvironment() {
  cli::RunOptions options;
  auto cases = number("TAPECHECK_CASES", 1, 1000000);
  if (!cases) return std::unexpected(cases.error());
  if (*cases) options.cases = **cases;
  auto seed = number("TAPECHECK_SEED", 0, UINT64_MAX);
  if (!seed) return std::unexpected(seed.error());
  options.seed = *seed;
  auto maxSize = number("TAPECHECK_MAX_SIZE", 0, 100);
  if (!maxSize) return std::unexpected(maxSize.error());
  if (*maxSize) options.maxSize = static_cast<int>(**maxSize);
  auto domain = domainVariable();
  if (!domain) return std::unexpected(domain.error());
  options.domain = *domain;
  auto isolate = isolateVariable();
  if (!isolate) return std::unexpected(isolate.error());
  options.isolate = *isolate;
  if (auto saveDir = variable("TAPECHECK_SAVE_DIR")) options.saveDir = *saveDir;
  auto replaySaved = number("TAPECHECK_REPLAY_SAVED", 0, 1);
  if (!replaySaved) return std::unexpected(replaySaved.error());
  options.replaySaved = replaySaved->value_or(1) == 1;
  return options;
}

// The test program's path, for the commands a failure prints: absolute, so they run from anywhere.
std::string executablePath() {
  std::error_code error;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string("TEST_PROGRAM") : exe.string();
}

//! The engines of a test program and how its printed commands name it; lives as long as the tests.
struct Registered {
  cli::Program program;
  std::string executable;
};

// Fails the running test at the macro's line, in the user's file (a message at a line of this file
// would point into the installed library).
void failAt(const std::source_location& where, const std::string& message) {
  ADD_FAILURE_AT(where.file_name(), static_cast<int>(where.line())) << message;
}

// What a failing row's test says: `run`'s report (the verdict, the listing, the saved file), then
// the commands that replay the saved file and repeat the test.
std::string failureMessage(const cli::RowOutcome& outcome, const cli::RunOptions& options, std::uint64_t seed,
                           const Registered& registered, const std::string& testName) {
  std::string message = outcome.failureReport;
  const std::string exe = cli::shellWord(registered.executable);
  if (!outcome.row.savedFile.empty())
    message += fmt::format("replay: TAPECHECK_REPLAY={} {}\n",
                           cli::shellWord(std::filesystem::absolute(outcome.row.savedFile).string()), exe);
  message += fmt::format("rerun:  TAPECHECK_SEED={} TAPECHECK_CASES={} TAPECHECK_MAX_SIZE={}{} {} --gtest_filter={}\n",
                         seed, options.cases, options.maxSize,
                         options.domain.empty() ? "" : " TAPECHECK_DOMAIN=" + options.domain, exe,
                         cli::shellWord(testName));
  return message;
}

// The failure database of the test's row: the counterexamples saved for it are judged before its
// cases are generated; the test fails on one that fails again, naming the command that replays it.
void judgeSaved(const cli::RunSession& session, const Registered& registered, const std::source_location& where) {
  const cli::SavedReport saved = session.replaySaved();
  if (saved.empty()) return;
  const std::string text = cli::formatSavedReport(
      saved,
      [&](const cli::SavedCase& c) {
        return fmt::format("TAPECHECK_REPLAY={} {}", cli::shellWord(std::filesystem::absolute(c.file).string()),
                           cli::shellWord(registered.executable));
      },
      false);
  fmt::print("tapecheck: {}", text);
  std::fflush(stdout);
  if (!saved.passed()) failAt(where, "tapecheck: " + text);
}

// The body of ENGINE/PROPERTY.CARRIER: the row of `run --engine ENGINE --property PROPERTY
// --carrier CARRIER` with the environment's options.
void runRowTest(const Registered& registered, const std::string& engine, const cli::PlannedRow& planned,
                const std::string& testName, const std::source_location& where) {
  auto options = optionsFromEnvironment();
  if (!options) return failAt(where, "tapecheck: " + options.error().message);
  options->engine = engine, options->property = planned.property, options->carrier = planned.carrier;
  const std::uint64_t seed = options->seed.value_or(cli::clockSeed());
  ::testing::Test::RecordProperty("tapecheck_seed", std::to_string(seed));
  ::testing::Test::RecordProperty("tapecheck_cases", std::to_string(options->cases));
  fmt::print("tapecheck: {} on {} with engine {}: {} cases, seed {} (TAPECHECK_SEED={} repeats it)\n", planned.property,
             planned.carrier, engine, options->cases, seed, seed);
  std::fflush(stdout);
  auto session = cli::RunSession::open(*options, registered.program);
  if (!session) return failAt(where, "tapecheck: " + session.error().message);
  if ((*session)->replaysSaved()) judgeSaved(**session, registered, where);
  gen::CoverageTally coverage;
  cli::RowOutcome outcome = (*session)->runRow(0, seed, coverage);
  outcome.row.domainShown = (*session)->judging().verdict;
  ::testing::Test::RecordProperty("tapecheck_domain", outcome.row.domain);
  fmt::print("{}", cli::formatTable({outcome.row}));
  std::fflush(stdout);
  if (std::string fault = outcome.row.shrinkerFault(); !fault.empty())
    failAt(where, "tapecheck: internal error: shrinking went wrong: " + fault);
  if (outcome.row.run.passed()) return;
  if (!outcome.row.run.failure)
    return failAt(where,
                  fmt::format("{} on {}: {}", planned.property, outcome.row.carrierLabel(), outcome.row.run.whyNotPassed()));
  failAt(where, failureMessage(outcome, *options, seed, registered, testName));
}

// The body of tapecheck.replay: `PROGRAM replay FILE` on the program's engines.
void replayTest(const Registered& registered, const std::string& file, const std::source_location& where) {
  cli::ReplayOptions options;
  options.file = file;
  auto isolate = isolateVariable();
  if (!isolate) return failAt(where, "tapecheck: " + isolate.error().message);
  options.isolate = *isolate;
  const int status = cli::replayCase(options, registered.program);
  std::fflush(stdout);
  if (status == 1)
    return failAt(where, "tapecheck: the saved counterexample " + file + " still fails (the listing is above)");
  if (status != 0) failAt(where, "tapecheck: could not replay " + file + " (the error is above)");
}

//! A test whose body is a function, so that every test of the integration shares one fixture type
//! (GoogleTest requires one per suite).
class FunctionTest : public ::testing::Test {
 public:
  explicit FunctionTest(std::function<void()> body) : body_(std::move(body)) {}
  void TestBody() override { body_(); }

 private:
  std::function<void()> body_;
};

void registerTest(const std::string& suite, const std::string& name, const std::source_location& where,
                  std::function<void()> body) {
  ::testing::RegisterTest(suite.c_str(), name.c_str(), nullptr, nullptr, where.file_name(), static_cast<int>(where.line()),
                          [body]() -> ::testing::Test* { return new FunctionTest(body); });
}

// A name as part of a test's name: --gtest_filter reads '-' as the start of the patterns to leave
// out, ':' as a separator, '.' as the suite's end, so "minigrad-bug" is "minigrad_bug" there.
std::string testNamePart(std::string name) {
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return name;
}

// Registers ENGINE/PROPERTY.CARRIER for each row `run --engine ENGINE` plans, in the domain
// TAPECHECK_DOMAIN names (an invalid one plans the engine verdict's rows; each test then fails
// naming the variable). Planning opens the engine in this process: nothing runs yet.
std::size_t registerRows(const Registered& registered, const std::string& engine, const std::source_location& where) {
  cli::RunOptions planning;
  planning.engine = engine, planning.isolate = false, planning.domain = domainVariable().value_or("");
  auto session = cli::RunSession::open(planning, registered.program);
  if (!session) {  // a test that fails, rather than an engine that silently has none
    const std::string why = session.error().message;
    registerTest(testNamePart(engine), "tapecheck_plan", where, [why, where] { failAt(where, "tapecheck: " + why); });
    return 1;
  }
  for (const cli::PlannedRow& row : (*session)->rows()) {
    const std::string suite = testNamePart(engine) + "/" + row.property, name = testNamePart(row.carrier);
    registerTest(suite, name, where, [&registered, engine, row, testName = suite + "." + name, where] {
      runRowTest(registered, engine, row, testName, where);
    });
  }
  return (*session)->rows().size();
}

}  // namespace

std::size_t registerEngineTests(std::vector<cli::NamedEngine> engines, std::source_location where) {
  std::vector<std::string> names;
  for (const cli::NamedEngine& engine : engines) names.push_back(engine.name);
  const std::string exe = executablePath();
  // Never freed: the tests and the forked copies serving the engines use it until the program ends.
  const auto* registered = new Registered{
      cli::Program{std::filesystem::path(exe).filename().string(), cli::EngineCatalog(std::move(engines))}, exe};
  if (auto file = variable("TAPECHECK_REPLAY")) {
    registerTest("tapecheck", "replay", where,
                 [registered, file = *file, where] { replayTest(*registered, file, where); });
    return 1;
  }
  std::size_t tests = 0;
  for (const std::string& name : names) tests += registerRows(*registered, name, where);
  return tests;
}

}  // namespace tc::gtest
