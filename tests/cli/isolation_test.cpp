// Crash isolation (cli/engine_choice.h): a program's own engines run in a forked copy of it, so an
// exception, a segfault, an abort or a hang fails the case, which is shrunk, saved, and replays
// with the same verdict on the same engine. The engines: tests/cli/engines/faulty_engines.cpp.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "tests/cli/run_tapecheck.h"

namespace tc::testing {
namespace {

// A run of faulty_engines saving its counterexamples in a fresh directory.
struct FaultyRun {
  CommandRun run;
  std::string saveDir;
};

FaultyRun runFaulty(const std::string& arguments) {
  static int runs = 0;
  std::string dir = ::testing::TempDir() + "isolation_" + std::to_string(getpid()) + "_" + std::to_string(++runs);
  std::filesystem::remove_all(dir);
  std::string command = std::string(FAULTY_ENGINES) + " " + arguments + " --save-failures " + dir;
  return {runCommand(command), dir};
}

// The node count the failure shrank to ("shrunk in 4 steps from 9 to 1 nodes").
int shrunkNodes(const std::string& out) {
  std::smatch match;
  if (!std::regex_search(out, match, std::regex(R"(from \d+ to (\d+) nodes)"))) return -1;
  return std::stoi(match[1]);
}

// The file the failure was saved to ("saved: DIR/NAME.json").
std::string savedFile(const std::string& out) {
  std::smatch match;
  if (!std::regex_search(out, match, std::regex(R"(saved: (\S+\.json))"))) return "";
  return match[1];
}

TEST(Isolation, ASegfaultOnAShapeIsAShrunkCounterexampleThatReplaysOnItsEngine) {
  FaultyRun found = runFaulty("run --engine segfaults --carrier rational --property compileChecked_context --cases 200 --seed 1");
  EXPECT_EQ(found.run.status, 1) << found.run.out << found.run.err;
  EXPECT_NE(found.run.out.find("engine segfaults (isolated)"), std::string::npos) << found.run.out;
  EXPECT_NE(found.run.out.find("engine crashed: signal 11 (Segmentation fault)"), std::string::npos) << found.run.out;
  int nodes = shrunkNodes(found.run.out);
  EXPECT_GE(nodes, 1) << found.run.out;
  EXPECT_LE(nodes, 3) << found.run.out;
  std::string file = savedFile(found.run.out);
  ASSERT_FALSE(file.empty()) << found.run.out;
  EXPECT_NE(found.run.out.find("replay: faulty_engines replay " + file), std::string::npos) << found.run.out;

  CommandRun replayed = runCommand(std::string(FAULTY_ENGINES) + " replay " + file);
  EXPECT_EQ(replayed.status, 1) << replayed.out << replayed.err;
  EXPECT_NE(replayed.out.find("with engine segfaults (isolated)"), std::string::npos) << replayed.out;
  EXPECT_NE(replayed.out.find("FAIL: engine crashed: signal 11 (Segmentation fault)"), std::string::npos) << replayed.out;
  CommandRun shown = runCommand(std::string(FAULTY_ENGINES) + " show " + file);
  EXPECT_EQ(shown.status, 0) << shown.out << shown.err;
  EXPECT_NE(shown.out.find("it still fails: engine crashed: signal 11"), std::string::npos) << shown.out;
  // The same case on the built-in engine holds: the verdict is the engine's, not the case's.
  CommandRun onCompiled = runCommand(std::string(FAULTY_ENGINES) + " replay " + file + " --engine compiled");
  EXPECT_EQ(onCompiled.status, 0) << onCompiled.out << onCompiled.err;
}

TEST(Isolation, WithoutIsolationTheSegfaultEndsTheRun) {
  FaultyRun found =
      runFaulty("run --engine segfaults --carrier rational --property compileChecked_context --cases 200 --seed 1 --no-isolate");
  EXPECT_EQ(found.run.status, 128 + 11) << found.run.out << found.run.err;  // the shell's status for SIGSEGV
  EXPECT_EQ(found.run.out.find("properties x carriers"), std::string::npos) << found.run.out;
}

TEST(Isolation, AnExceptionIsAVerdictInProcessAndIsolated) {
  FaultyRun inProcess =
      runFaulty("run --engine throws --carrier rational --property compileChecked_context --cases 200 --seed 1 --no-isolate");
  EXPECT_EQ(inProcess.run.status, 1) << inProcess.run.out << inProcess.run.err;
  EXPECT_NE(inProcess.run.out.find("engine threw: no kernel for matmul"), std::string::npos) << inProcess.run.out;
  EXPECT_LE(shrunkNodes(inProcess.run.out), 3) << inProcess.run.out;

  FaultyRun isolated = runFaulty("run --engine throws --carrier rational --property compileChecked_context --cases 200 --seed 1");
  EXPECT_EQ(isolated.run.status, 1) << isolated.run.out << isolated.run.err;
  EXPECT_NE(isolated.run.out.find("engine exited: status 70 (last line on stderr: 'engine threw: no kernel for matmul')"),
            std::string::npos)
      << isolated.run.out;
  EXPECT_LE(shrunkNodes(isolated.run.out), 3) << isolated.run.out;
}

TEST(Isolation, AnAbortIsACrashWithTheEnginesLastWords) {
  FaultyRun found = runFaulty("run --engine aborts --carrier rational --property compileChecked_context --cases 200 --seed 1");
  EXPECT_EQ(found.run.status, 1) << found.run.out << found.run.err;
  EXPECT_NE(found.run.out.find("engine crashed: signal 6 (Aborted) (last line on stderr: 'faulty_engines: assertion "
                               "'axis reduced' failed')"),
            std::string::npos)
      << found.run.out;
  EXPECT_LE(shrunkNodes(found.run.out), 3) << found.run.out;
}

// The row's "unsupported" column and the summary line of a run.
std::string unsupportedOf(const std::string& out, const std::string& property) {
  std::smatch match;
  if (!std::regex_search(out, match, std::regex(property + R"(\s+rational\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\w+))")))
    return "";
  return fmt::format("{} cases, {} compared, {} unsupported: {}", match[1].str(), match[2].str(), match[4].str(),
                     match[5].str());
}

// An engine's refusal (tc::UnsupportedCase) counts the case unsupported whether or not the engine is
// isolated: a forked copy answers `unsupported` as an engine process does, so the verdict is the same.
TEST(Isolation, ARefusalCountsUnsupportedInProcessAndIsolated) {
  const std::string args = "run --engine refuses --carrier rational --property compileChecked_context --cases 100 --seed 1";
  FaultyRun inProcess = runFaulty(args + " --no-isolate");
  FaultyRun isolated = runFaulty(args);
  EXPECT_EQ(inProcess.run.status, 0) << inProcess.run.out << inProcess.run.err;
  EXPECT_EQ(isolated.run.status, 0) << isolated.run.out << isolated.run.err;
  const std::string counts = unsupportedOf(inProcess.run.out, "compileChecked_context");
  ASSERT_FALSE(counts.empty()) << inProcess.run.out;
  EXPECT_EQ(counts.find(" 0 unsupported"), std::string::npos) << counts;  // some cases had a mul
  EXPECT_EQ(unsupportedOf(isolated.run.out, "compileChecked_context"), counts) << isolated.run.out;
}

TEST(Isolation, AHangIsATimeoutVerdict) {
  FaultyRun found = runFaulty(
      "run --engine hangs --carrier rational --property compileChecked_context --cases 200 --seed 1 --engine-timeout 0.5");
  EXPECT_EQ(found.run.status, 1) << found.run.out << found.run.err;
  EXPECT_NE(found.run.out.find("no answer in 0.5 s"), std::string::npos) << found.run.out;
  EXPECT_LE(shrunkNodes(found.run.out), 3) << found.run.out;
}

TEST(Isolation, ACounterexampleThatCannotBeSavedKeepsItsVerdictAndEndsWithStatus2) {
  std::string dir = ::testing::TempDir() + "unsaveable_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  // Where the counterexample would go, a directory: refused (only a regular file is replaced).
  std::filesystem::create_directories(dir + "/compileChecked_context-rational-1.json/inside");
  CommandRun run = runCommand(std::string(FAULTY_ENGINES) +
                              " run --engine throws --no-isolate --carrier rational --property compileChecked_context "
                              "--cases 200 --seed 1 --save-failures " + dir);
  EXPECT_EQ(run.status, 2) << run.out << run.err;
  EXPECT_NE(run.out.find("1 FAILED"), std::string::npos) << run.out;  // the verdict is printed first
  EXPECT_NE(run.err.find("could not save a counterexample: '" + dir +
                         "/compileChecked_context-rational-1.json' is a directory; tapecheck writes only a regular file"),
            std::string::npos)
      << run.err;
}

TEST(Isolation, ABuiltInEngineIsolatedPassesEveryProperty) {
  CommandRun run = runCommand(std::string(FAULTY_ENGINES) + " run --engine compiled --isolate --cases 20 --seed 3 --quiet");
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("all passed"), std::string::npos) << run.out;
}

TEST(Isolation, AnUnknownEngineNamesTheProgramsEngines) {
  CommandRun run = runCommand(std::string(FAULTY_ENGINES) + " replay " + source("examples/graphs/readme.json") +
                              " --engine nosuch");
  EXPECT_EQ(run.status, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("throws,segfaults,aborts,hangs,refuses,reference,tape,compiled"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace tc::testing
