// The failure database: `tapecheck run` judges the counterexamples saved for its engine first, says
// which still fail and which now pass, and fails the run on one that fails again.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/run_tapecheck.h"

namespace {

using tc::testing::CommandRun;
using tc::testing::runTapecheck;
using tc::testing::source;
namespace fs = std::filesystem;

// A folder of its own for each test, holding `engine.sh`: the scalar example engine, with its planted
// bug (a repeated argument's adjoint counted once) while `buggy`. The command stays the same when
// the engine is mended, as it does for a user who fixes their engine.
class SavedFailures : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("saved_failures_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    engineIs(true);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void engineIs(bool buggy) {
    std::ofstream(dir_ / "engine.sh") << "exec /usr/bin/python3 " << source("examples/python/scalar_engine.py")
                                      << (buggy ? " --bug" : "") << "\n";
  }
  std::string engine() const { return "--engine-cmd 'sh " + (dir_ / "engine.sh").string() + "'"; }
  std::string saves() const { return (dir_ / "saved").string(); }

  // The row the planted bug fails, on cases too small to find it: what fails is what was saved.
  CommandRun runSmall(const std::string& more = "", const std::string& saveDir = "") {
    return runTapecheck("run --carrier rational --property compileChecked_backwardDenseFrom --cases 1 --max-size 0 --seed 1 " +
                        engine() + " --save-failures " + (saveDir.empty() ? saves() : saveDir) + " " + more);
  }
  // A run that finds the bug and saves its counterexample.
  void saveOne() {
    CommandRun found = runTapecheck("run --carrier rational --property compileChecked_backwardDenseFrom --cases 50 --seed 1 " +
                                    engine() + " --save-failures " + saves());
    ASSERT_EQ(found.status, 1) << found.out << found.err;
    ASSERT_EQ(std::distance(fs::directory_iterator(saves()), fs::directory_iterator()), 1);
  }

  fs::path dir_;
};

TEST_F(SavedFailures, ASavedCounterexampleThatStillFailsFailsTheRun) {
  saveOne();
  CommandRun small = runSmall("--no-replay-saved");
  ASSERT_EQ(small.status, 0) << "the small run alone does not find the bug: " << small.out << small.err;
  CommandRun run = runSmall("--json " + (dir_ / "report.json").string() + " --junit " + (dir_ / "report.xml").string());
  EXPECT_EQ(run.status, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("1 saved counterexample in " + saves() + ": 1 still fails"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("  still fails: " + saves() + "/compileChecked_backwardDenseFrom-rational-1.json"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("replay: tapecheck replay " + saves() + "/compileChecked_backwardDenseFrom-rational-1.json " +
                         engine() + " --domain default"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("seed 1: 1 saved counterexample still fails\n"), std::string::npos) << run.out;
  auto report = nlohmann::json::parse(std::ifstream(dir_ / "report.json"));
  EXPECT_FALSE(report["passed"]);
  EXPECT_EQ(report["results"][0]["result"], "pass");
  ASSERT_EQ(report["saved"]["cases"].size(), 1u) << report["saved"];
  EXPECT_EQ(report["saved"]["cases"][0]["result"], "fail");
  std::ifstream xml(dir_ / "report.xml");
  std::string junit((std::istreambuf_iterator<char>(xml)), std::istreambuf_iterator<char>());
  EXPECT_NE(junit.find("classname=\"tapecheck.saved\" name=\"saved counterexamples\" time=\"0\">\n      <failure"),
            std::string::npos)
      << junit;
  EXPECT_NE(junit.find("tests=\"2\" failures=\"1\""), std::string::npos) << junit;
}

TEST_F(SavedFailures, AMendedEngineNowPassesIt) {
  saveOne();
  engineIs(false);
  CommandRun run = runSmall("--json " + (dir_ / "report.json").string());
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("1 saved counterexample in " + saves() + ": 1 now passes\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("  now passes:  " + saves() + "/compileChecked_backwardDenseFrom-rational-1.json"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("seed 1: all passed"), std::string::npos) << run.out;
  auto report = nlohmann::json::parse(std::ifstream(dir_ / "report.json"));
  EXPECT_TRUE(report["passed"]);
  EXPECT_EQ(report["saved"]["cases"][0]["result"], "pass");
  // --quiet keeps the summary line and leaves out what passes.
  CommandRun quiet = runSmall("--quiet");
  EXPECT_NE(quiet.out.find(": 1 now passes\n"), std::string::npos) << quiet.out;
  EXPECT_EQ(quiet.out.find("now passes: "), std::string::npos) << quiet.out;
}

TEST_F(SavedFailures, NoReplaySavedAndOtherEnginesAndRowsLeaveThemAlone) {
  saveOne();
  CommandRun off = runSmall("--no-replay-saved --json " + (dir_ / "off.json").string());
  EXPECT_EQ(off.out.find("saved counterexample"), std::string::npos) << off.out;
  EXPECT_TRUE(nlohmann::json::parse(std::ifstream(dir_ / "off.json"))["saved"].is_null());
  // Another engine command: its saved counterexamples are not this engine's.
  CommandRun other = runTapecheck("run --carrier rational --property compileChecked_backwardDenseFrom --cases 1 --max-size 0 "
                                  "--seed 1 --engine-cmd '/usr/bin/python3 " + source("examples/python/scalar_engine.py") +
                                  "' --save-failures " + saves());
  EXPECT_EQ(other.status, 0) << other.out << other.err;
  EXPECT_NE(other.out.find("no saved counterexample for this engine in " + saves() +
                           " (1 file is there for other engines or rows)"),
            std::string::npos)
      << other.out;
  // A row this run does not run.
  CommandRun row = runTapecheck("run --carrier rational --property compileChecked_context --cases 1 --max-size 0 --seed 1 " +
                                engine() + " --save-failures " + saves());
  EXPECT_EQ(row.status, 0) << row.out << row.err;
  EXPECT_NE(row.out.find("(1 file is there for other engines or rows)"), std::string::npos) << row.out;
}

TEST_F(SavedFailures, TheCorpusFolderIsJudgedAndAFileThatIsNoCaseIsNamed) {
  saveOne();
  fs::create_directories(dir_ / "elsewhere");
  std::ofstream(dir_ / "elsewhere" / "broken.json") << "{\"nodes\": [";
  // --corpus is read; --save-failures stays where new failures go.
  CommandRun corpus = runSmall("--corpus " + saves(), (dir_ / "new").string());
  EXPECT_EQ(corpus.status, 1) << corpus.out << corpus.err;
  EXPECT_NE(corpus.out.find("1 saved counterexample in " + saves() + ": 1 still fails"), std::string::npos) << corpus.out;
  CommandRun broken = runSmall("--corpus " + (dir_ / "elsewhere").string());
  EXPECT_EQ(broken.status, 0) << broken.out << broken.err;
  EXPECT_NE(broken.out.find("  not a case file: " + (dir_ / "elsewhere" / "broken.json").string()), std::string::npos)
      << broken.out;
}

TEST_F(SavedFailures, ASurveyDoesNotJudgeThem) {
  saveOne();
  CommandRun survey = runSmall("--survey");
  EXPECT_EQ(survey.out.find("saved counterexample"), std::string::npos) << survey.out;
}

}  // namespace
