// `tapecheck run`: the table names every property and carrier; failures and bad options exit
// with the documented status.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/run_tapecheck.h"

namespace {

using tc::testing::CommandRun;
using tc::testing::runTapecheck;
using tc::testing::source;

TEST(RunCommand, TableNamesEveryPropertyAndCarrier) {
  // 25 cases per row: fewer than 400 per carrier, so that no coverage floor is judged from a sample
  // this small.
  CommandRun run = runTapecheck("run --cases 25 --seed 7");
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  for (const char* name : {"accuracy", "ofGraph_toTape", "lowerChecked_toTape", "compileChecked_eq_lowerToTapeChecked",
                           "compileChecked_context", "compileChecked_backwardDenseFrom",
                           "compileChecked_backwardDenseFrom_eq_tape", "backwardDenseAllFrom_eq_dense", "determinism",
                           "adjoint_identity", "node_adjoint_identity", "linearity", "rational", "modp", "double",
                           "float", "rational-noeq"})
    EXPECT_NE(run.out.find(name), std::string::npos) << name;
  EXPECT_NE(run.out.find("seed 7: all passed"), std::string::npos) << run.out;
}

TEST(RunCommand, TheSameSeedGivesTheSameRun) {
  CommandRun first = runTapecheck("run --cases 20 --seed 3 --carrier modp --property linearity");
  CommandRun second = runTapecheck("run --cases 20 --seed 3 --carrier modp --property linearity");
  ASSERT_EQ(first.status, 0);
  auto table = [](const std::string& out) { return out.substr(out.find("linearity"), out.find('\n', out.find("linearity"))); };
  // The skipped count is a function of the generated cases alone.
  EXPECT_EQ(table(first.out).substr(0, 70), table(second.out).substr(0, 70));
}

TEST(RunCommand, UnknownPropertyOrCarrierIsAUsageError) {
  EXPECT_EQ(runTapecheck("run --property nosuch").status, 2);
  EXPECT_EQ(runTapecheck("run --carrier complex").status, 2);
  EXPECT_EQ(runTapecheck("run --carrier double --property adjoint_identity").status, 2);
  EXPECT_EQ(runTapecheck("run --cases 0").status, 2);
}

TEST(RunCommand, PrintsTheCoverageTableWithFloors) {
  CommandRun run = runTapecheck("run --cases 50 --seed 2 --carrier modp");
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  for (const char* line : {"coverage: share of generated cases per carrier", "op matmul", "opaque const3", "fan-out",
                           "repeated argument", "domain failure", "output at input", "seed pack"})
    EXPECT_NE(run.out.find(line), std::string::npos) << line;
  EXPECT_EQ(run.out.find("op exp"), std::string::npos) << "modp has no transcendental ops";
  EXPECT_EQ(run.out.find("below floor"), std::string::npos) << run.out;
}

TEST(RunCommand, SaysWhenThereAreTooFewCasesToJudgeFloors) {
  CommandRun run = runTapecheck("run --cases 10 --seed 2 --carrier rational --property linearity");
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("coverage floors not judged on rational: 10 cases (at least 400 needed)"), std::string::npos)
      << run.out;
}

TEST(RunCommand, RunsTheEnginePropertiesOnEveryBuiltinEngine) {
  for (const char* engine : {"reference", "tape", "compiled"}) {
    CommandRun run = runTapecheck(std::string("run --cases 20 --seed 4 --carrier double --engine ") + engine);
    EXPECT_EQ(run.status, 0) << run.out << run.err;
    EXPECT_NE(run.out.find(std::string("engine ") + engine), std::string::npos) << run.out;
  }
  EXPECT_EQ(runTapecheck("run --engine torch").status, 2);
}

TEST(RunCommand, ReportsThePolicyAndHowManyCasesWereCompared) {
  CommandRun run = runTapecheck("run --cases 20 --seed 4 --carrier double --policy values --survey");
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("policy values, survey"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("compared skipped unsupp."), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("survey: failures by kind"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("(no failures)"), std::string::npos) << run.out;
  EXPECT_EQ(runTapecheck("run --policy loose").status, 2);
}

TEST(RunCommand, TheExactDomainAddsExactReferenceAndPasses) {
  std::string json = ::testing::TempDir() + "exact.json";
  CommandRun run = runTapecheck("run --cases 40 --seed 5 --carrier float --domain exact --json " + json);
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("domain exact, policy bits"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("exact_reference"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("forward_oracle"), std::string::npos) << run.out;
  // No NaN or infinity in the exact domain (forward_oracle's cases hold −0, an IEEE special value too).
  for (const char* special : {"NaN into", "inf into"})
    EXPECT_EQ(run.out.find(special), std::string::npos) << special << "\n" << run.out;
  std::ifstream in(json);
  nlohmann::json report = nlohmann::json::parse(in);
  EXPECT_EQ(report["domain"], "exact");
  EXPECT_EQ(report["results"].size(), 18u);  // the theorems, the oracles (shrinker, profile_file too), exact_reference and forward_oracle
  EXPECT_EQ(runTapecheck("run --domain fuzzy").status, 2);
  EXPECT_EQ(runTapecheck("run --cases 5 --carrier double --domain default").out.find("exact_reference"), std::string::npos)
      << "exact_reference belongs to the exact domain";
  EXPECT_EQ(runTapecheck("run --cases 5 --carrier double --domain default").out.find("forward_oracle"), std::string::npos)
      << "on IEEE carriers forward_oracle belongs to the exact domain";
}

// Without --domain, tapecheck's own engine is judged on every value and, on IEEE carriers, by the
// exact domain's own rows too (Judging::exactRowsToo): the naive forward and the exact rationals.
TEST(RunCommand, TheDefaultRunAddsTheExactDomainsOwnRowsOnIeeeCarriers) {
  std::string json = ::testing::TempDir() + "default-exact-rows.json";
  CommandRun run = runTapecheck("run --cases 20 --seed 5 --carrier double --json " + json);
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("domain default (rows marked (exact) on the exact domain)"), std::string::npos) << run.out;
  for (const char* row : {"exact_reference                            double (exact)",
                          "forward_oracle                             double (exact)",
                          "compileChecked_context                     double            ",
                          "accuracy                                   double            "})
    EXPECT_NE(run.out.find(row), std::string::npos) << row << "\n" << run.out;
  std::ifstream in(json);
  nlohmann::json report = nlohmann::json::parse(in);
  EXPECT_EQ(report["domain"], "default");
  std::size_t exactRows = 0;
  for (const auto& row : report["results"]) {
    const bool exact = row["domain"] == "exact";
    exactRows += exact;
    EXPECT_EQ(exact, row["property"] == "exact_reference" || row["property"] == "forward_oracle") << row.dump();
  }
  EXPECT_EQ(exactRows, 2u);
  // The exact carriers have no such rows.
  CommandRun rational = runTapecheck("run --cases 5 --seed 5 --carrier rational");
  ASSERT_EQ(rational.status, 0) << rational.out << rational.err;
  EXPECT_EQ(rational.out.find("rational (exact)"), std::string::npos) << rational.out;
}

// A floor too small for the run's cases is listed as not judged, with the cases it needs, in the
// text and in the JSON report: never passed in silence.
TEST(RunCommand, FloorsTooRareForTheRunAreListedAsNotJudged) {
  std::string json = ::testing::TempDir() + "floors-not-judged.json";
  CommandRun run = runTapecheck("run --carrier interval --cases 30 --seed 1 --json " + json);
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("coverage floors not judged on interval from 480 cases: kink max (1%: 688 cases)"),
            std::string::npos) << run.out;
  EXPECT_NE(run.out.find("kernel transpose tiles (0.2%: 3451 cases)"), std::string::npos) << run.out;
  std::ifstream in(json);
  const nlohmann::json notJudged = nlohmann::json::parse(in)["coverage"]["interval"]["floors_not_judged"];
  EXPECT_EQ(notJudged, nlohmann::json({"kink max", "kink min", "kink relu", "kink abs", "kink clamp", "kernel transpose tiles"}));
}

// A profile restricts the ops drawn and declares conventions; the built-in engine does not prune
// its single-output pass, so a profile that says it does is found out.
TEST(RunCommand, AProfileFileRestrictsOpsAndAFalseDeclarationFails) {
  std::string ops = ::testing::TempDir() + "ops_profile.json", pruned = ::testing::TempDir() + "pruned_profile.json";
  std::ofstream(ops) << R"({"name": "small", "ops": ["add", "mul", "matmul", "relu", "sum"]})";
  std::ofstream(pruned) << R"({"name": "pruned", "carriers": ["double"], "single_output": "ancestors"})";
  std::string json = ::testing::TempDir() + "profile_run.json";
  CommandRun small = runTapecheck("run --cases 50 --seed 3 --carrier double --profile " + ops + " --json " + json);
  ASSERT_EQ(small.status, 0) << small.out << small.err;
  EXPECT_NE(small.out.find("engine compiled (profile small)"), std::string::npos) << small.out;
  std::ifstream in(json);
  nlohmann::json report = nlohmann::json::parse(in);
  EXPECT_EQ(report["profile"]["name"], "small");
  EXPECT_EQ(report["coverage"]["double"]["counts"].count("op exp"), 0u) << "only the profile's ops are drawn";
  CommandRun lying = runTapecheck("run --cases 100 --seed 2 --property backwardDenseAllFrom_eq_dense --profile " + pruned +
                                  " --save-failures " + ::testing::TempDir() + "pruned_failures");
  EXPECT_EQ(lying.status, 1) << lying.out << lying.err;
  EXPECT_NE(lying.out.find("(ancestors)"), std::string::npos) << lying.out;
  EXPECT_NE(lying.out.find("--profile " + pruned), std::string::npos) << "the rerun line repeats the profile";
  // The saved file records how the failure was judged (the profile, policy and domain), so that a
  // replay without options judges it the same way and fails again.
  const std::string saved = ::testing::TempDir() + "pruned_failures/backwardDenseAllFrom_eq_dense-double-2.json";
  std::ifstream savedFile(saved);
  nlohmann::json failure = nlohmann::json::parse(savedFile, nullptr, false)["failure"];
  EXPECT_EQ(failure["profile"]["name"], "pruned") << failure.dump();
  EXPECT_EQ(failure["profile"]["single_output"], "ancestors") << failure.dump();
  EXPECT_EQ(failure["domain"], "default") << failure.dump();
  EXPECT_EQ(failure["policy"], "bits") << failure.dump();
  CommandRun replayed = runTapecheck("replay " + saved);
  EXPECT_EQ(replayed.status, 1) << replayed.out << replayed.err;
  // Told otherwise (the spec's own profile), the same case holds.
  std::string spec = ::testing::TempDir() + "spec_profile.json";
  std::ofstream(spec) << R"({"name": "spec"})";
  EXPECT_EQ(runTapecheck("replay " + saved + " --profile " + spec).status, 0);
  CommandRun bad = runTapecheck("run --profile " + ops + ".missing");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err.find('\n'), bad.err.size() - 1) << "one line: " << bad.err;
}

TEST(MutantsCommand, ANormalBuildHasNoMutantsAndSaysHowToGetThem) {
  CommandRun run = runTapecheck("mutants");
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.err, "tapecheck: mutants: this build has no mutants; configure with -DTAPECHECK_MUTANTS=ON\n");
}

}  // namespace

namespace {

TEST(CommandLine, AnUnknownCommandListsTheCommands) {
  CommandRun run = runTapecheck("frob");
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.err, "tapecheck: no command 'frob'; the commands are: grad, run, replay, check, show, serve, mutants, "
                     "bench (run 'tapecheck --help')\n");
}

TEST(CommandLine, ANegativeSeedIsRefusedNotWrapped) {
  CommandRun run = runTapecheck("run --seed -1 --cases 5");
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("--seed: must be a whole number from 0 to 18446744073709551615, got -1"), std::string::npos)
      << run.err;
  EXPECT_EQ(runTapecheck("check examples/graphs/mlp.json --seed -3").status, 2);
  CommandRun tooLarge = runTapecheck("run --seed 18446744073709551616 --cases 5");
  EXPECT_EQ(tooLarge.status, 2);
  EXPECT_NE(tooLarge.err.find("got 18446744073709551616"), std::string::npos) << tooLarge.err;
}

TEST(CommandLine, OutputPathsAreCheckedBeforeTheRun) {
  for (const char* option : {"--save-failures ''", "--json ''", "--junit ''"}) {
    CommandRun run = runTapecheck(std::string("run --cases 5 ") + option);
    EXPECT_EQ(run.status, 2) << option;
    EXPECT_NE(run.err.find("the path is empty"), std::string::npos) << run.err;
    EXPECT_EQ(run.out, "") << "nothing runs";
  }
  CommandRun missing = runTapecheck("run --cases 5 --json /nonexistent-dir/report.json");
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.out, "") << "refused before the run, not after it";
  EXPECT_NE(missing.err.find("'/nonexistent-dir' does not exist"), std::string::npos) << missing.err;
}

// A report path must name a regular file or nothing (docs/threat-model.md §3): a named pipe, a
// device, a symbolic link, a name too long or a missing directory is refused before the run, in
// one line naming the option and the path, and left as it was.
TEST(CommandLine, OutputPathsThatCannotBeRegularFilesAreRefusedBeforeTheRun) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("unsafe_paths_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path fifo = dir / "report.fifo", target = dir / "target.json", link = dir / "link.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  std::ofstream(target) << "the target";
  fs::create_symlink(target, link);
  const std::string longName = (dir / (std::string(300, 'n') + ".xml")).string();
  for (const auto& [option, why] :
       {std::pair<std::string, std::string>{"--json " + fifo.string(), "--json: '" + fifo.string() + "' is a named pipe (FIFO)"},
        {"--junit /dev/null", "--junit: '/dev/null' is a character device; tapecheck writes only a regular file or a new one"},
        {"--json " + link.string(), "--json: '" + link.string() + "' is a symbolic link"},
        {"--junit " + longName, "is longer than 255 bytes"},
        {"--json " + (dir / "missing" / "report.json").string(), "/missing' does not exist"},
        {"--save-failures " + (dir / std::string(300, 's')).string(), "is longer than 255 bytes"}}) {
    CommandRun run = runTapecheck("run --cases 2 --seed 1 " + option);
    EXPECT_EQ(run.status, 2) << option << "\n" << run.out << run.err;
    EXPECT_EQ(run.out, "") << option << ": refused before the run";
    EXPECT_NE(run.err.find(why), std::string::npos) << option << ": " << run.err;
    EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "one line: " << run.err;
  }
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_TRUE(fs::is_character_file(fs::symlink_status("/dev/null")));
  std::ifstream in(target);
  std::string kept;
  std::getline(in, kept);
  EXPECT_EQ(kept, "the target");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 3) << "nothing left behind";
}

// A report that cannot be written after the run (the disk full, a file size limit) is reported on
// stderr and the run exits 2, the verdicts printed before it standing; the previous report stays.
// A file size limit binds without root; a full disk needs a small file system, mounted here in a
// user namespace and filled (skipped where the system allows none).
TEST(CommandLine, AReportThatCannotBeWrittenIsReported) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("write_errors_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string json = (dir / "report.json").string();
  std::ofstream(json) << "previous";
  CommandRun limited = tc::testing::runCommand("(trap '' XFSZ; ulimit -f 1; exec " + std::string(TAPECHECK_BINARY) +
                                               " run --cases 5 --seed 1 --carrier rational --property compileChecked_context --json " + json + ")");
  EXPECT_EQ(limited.status, 2) << limited.out << limited.err;
  EXPECT_NE(limited.out.find("seed 1: all passed"), std::string::npos) << limited.out;
  EXPECT_EQ(limited.err, "tapecheck: run: --json: cannot write '" + json + "': File too large\n");
  std::ifstream previous(json);
  std::string kept;
  std::getline(previous, kept);
  EXPECT_EQ(kept, "previous");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1) << "no temporary left";

  const fs::path small = dir / "small";
  fs::create_directories(small);
  CommandRun full = tc::testing::runCommand("unshare -rm sh -c 'mount -t tmpfs -o size=4k tmpfs " + small.string() +
                                            " || exit 99; head -c 4096 /dev/zero > " + small.string() + "/filler; exec " + TAPECHECK_BINARY +
                                            " run --cases 5 --seed 1 --carrier rational --property compileChecked_context --json " +
                                            small.string() +
                                            "/report.json'");
  if (full.status == 99 || full.err.starts_with("unshare:")) GTEST_SKIP() << "no user namespace to mount a small file system: " << full.err;
  EXPECT_EQ(full.status, 2) << full.out << full.err;
  EXPECT_NE(full.out.find("seed 1: all passed"), std::string::npos) << full.out;
  EXPECT_EQ(full.err, "tapecheck: run: --json: cannot write '" + small.string() + "/report.json': No space left on device\n");
}

TEST(CommandLine, HelpShowsDefaultsAndTheProperties) {
  CommandRun run = runTapecheck("run --help");
  EXPECT_EQ(run.status, 0);
  EXPECT_NE(run.out.find("=100"), std::string::npos) << "the default number of cases";
  EXPECT_NE(run.out.find("node_adjoint_identity"), std::string::npos) << run.out;
}

// A CI line that would pass having checked nothing is a usage error: a shard past the rows, an
// engine command left empty by an unset variable.
TEST(RunCommand, ARunThatWouldCheckNothingIsAUsageError) {
  CommandRun pastTheRows = runTapecheck("run --cases 2 --shard 199/200");
  EXPECT_EQ(pastTheRows.status, 2) << pastTheRows.out;
  EXPECT_NE(pastTheRows.err.find("shard 199/200 has no rows: the run has "), std::string::npos) << pastTheRows.err;
  EXPECT_EQ(pastTheRows.out.find("all passed"), std::string::npos) << pastTheRows.out;
  for (const char* empty : {"''", "'  '"}) {
    CommandRun run = runTapecheck(std::string("run --cases 2 --engine-cmd ") + empty);
    EXPECT_EQ(run.status, 2) << run.out;
    EXPECT_NE(run.err.find("the engine command is empty"), std::string::npos) << run.err;
  }
}

// --time-budget: rounds of every row with seeds S, S+1, ... until the time is spent; the report
// counts each row's cases over the rounds. (Only a lower bound on the time is asserted: a busy
// machine makes a run longer, never shorter.)
TEST(RunCommand, ATimeBudgetRunsRoundsOfSuccessiveSeeds) {
  const std::string report = ::testing::TempDir() + "time_budget_" + std::to_string(getpid()) + ".json";
  CommandRun run = runTapecheck("run --cases 5 --seed 3 --carrier modp --property linearity --time-budget 0.5 --json " + report);
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  auto json = nlohmann::json::parse(std::ifstream(report));
  const std::uint64_t rounds = json["rounds"];
  EXPECT_GE(json["seconds"].get<double>(), 0.5);
  EXPECT_EQ(json["time_budget"], 0.5);
  EXPECT_EQ(json["results"][0]["cases"], 5 * rounds) << "each round runs the row's 5 cases";
  EXPECT_NE(run.out.find("time budget 0.5 s (rounds with seeds 3, 4, ...)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("round 1: seed 3, 1 row, 5 cases; "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(rounds == 1 ? std::string("seed 3: all passed")
                                     : "seeds 3 to " + std::to_string(2 + rounds) + " (" + std::to_string(rounds) +
                                           " rounds): all passed"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(runTapecheck("run --time-budget 1 --survey").status, 2);
  EXPECT_EQ(runTapecheck("run --time-budget 0").status, 2);
}

// A row that fails in a round is not run again, its rerun line names that round's seed, and a run
// whose every row has failed ends before its budget.
TEST(RunCommand, ATimeBudgetRunsAFailedRowNoMore) {
  const std::string engine = "--engine-cmd '/usr/bin/python3 " + source("examples/python/scalar_engine.py") + " --bug'";
  const std::string row = "run --carrier rational --property compileChecked_backwardDenseFrom --cases 8 " + engine;
  // A seed whose run passes, followed by one whose run finds the planted bug.
  std::optional<int> passing;
  for (int seed = 1; seed < 60 && !passing; ++seed)
    if (runTapecheck(row + " --seed " + std::to_string(seed)).status == 0 &&
        runTapecheck(row + " --seed " + std::to_string(seed + 1)).status == 1)
      passing = seed;
  ASSERT_TRUE(passing) << "no seed below 60 passes before one that fails";
  const std::string report = ::testing::TempDir() + "time_budget_failed_" + std::to_string(getpid()) + ".json";
  CommandRun run = runTapecheck(row + " --seed " + std::to_string(*passing) + " --time-budget 3600 --json " + report);
  EXPECT_EQ(run.status, 1) << run.out << run.err;
  EXPECT_NE(run.out.find(" --seed " + std::to_string(*passing + 1) + " --cases 8 --max-size 100\n"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("seeds " + std::to_string(*passing) + " to " + std::to_string(*passing + 1) +
                         " (2 rounds): 1 FAILED"),
            std::string::npos)
      << run.out;
  auto json = nlohmann::json::parse(std::ifstream(report));
  EXPECT_EQ(json["rounds"], 2);
  EXPECT_GT(json["results"][0]["cases"].get<std::size_t>(), 8u) << "the first round's 8 cases and the second's";
  EXPECT_EQ(json["results"][0]["result"], "fail");
}

}  // namespace
