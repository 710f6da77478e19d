// `--engine-cmd`: an engine in another process, through the engine protocol
// (docs/engine-protocol.md). tapecheck's own engine behind `tapecheck serve` passes; an engine
// that crashes, exits or hangs on a case fails that case (shrunk, the engine restarted); one that
// breaks the protocol is an input error naming the line; one that never says hello too.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/cli/run_tapecheck.h"

namespace {

using tc::testing::CommandRun;
using tc::testing::runTapecheck;
using tc::testing::source;

// The misbehaving test engine in MODE (tests/cli/engines/misbehaving_engine.py), quoted for --engine-cmd.
std::string misbehaving(const std::string& mode, const std::string& argument = "") {
  return "--engine-cmd '/usr/bin/python3 " + source("tests/cli/engines/misbehaving_engine.py") + " " + TAPECHECK_BINARY +
         " " + mode + (argument.empty() ? "" : " " + argument) + "'";
}

std::string saveDir(const std::string& name) { return ::testing::TempDir() + "engine_cmd_" + name; }

nlohmann::json savedCase(const std::string& out) {
  auto at = out.find("saved: ");
  if (at == std::string::npos) return nullptr;
  std::ifstream file(out.substr(at + 7, out.find('\n', at) - at - 7));
  return nlohmann::json::parse(file, nullptr, false);
}

TEST(EngineCmd, TapechecksOwnEngineBehindTheProtocolPassesEveryEngineProperty) {
  CommandRun run = runTapecheck(std::string("run --cases 40 --seed 5 --engine-cmd '") + TAPECHECK_BINARY + " serve'");
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  for (const char* name : {"compileChecked_context", "compileChecked_backwardDenseFrom", "backwardDenseAllFrom_eq_dense",
                           "determinism", "adjoint_identity"})
    EXPECT_NE(run.out.find(name), std::string::npos) << name;
  // tapecheck's own runtime layers are not the engine's: not run.
  EXPECT_EQ(run.out.find("ofGraph_toTape"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("seed 5: all passed"), std::string::npos) << run.out;
}

// --engine-log records the exchange: the engine's input is the "> " lines, so a case can be rerun by
// hand (here: the first request fed to the engine again gives the answer recorded); starts and faults
// are "# " lines. An engine in tapecheck's own process has no exchange to record.
TEST(EngineCmd, TheEngineLogRecordsTheExchangeSoACaseCanBeRerunByHand) {
  const std::string log = ::testing::TempDir() + "engine_log.txt";
  const std::string engine = std::string(TAPECHECK_BINARY) + " serve";
  CommandRun run = runTapecheck("run --cases 5 --seed 1 --carrier rational --property compileChecked_context --engine-cmd '" +
                                engine + "' --engine-log " + log);
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  std::ifstream in(log);
  std::string line, firstRequest, firstAnswer, hello;
  std::size_t sent = 0, read = 0, starts = 0;
  while (std::getline(in, line)) {
    if (line.starts_with("> ") && sent++ == 0) firstRequest = line.substr(2);
    if (line.starts_with("< ") && read++ == 0) hello = line.substr(2);
    else if (line.starts_with("< ") && read == 2) firstAnswer = line.substr(2);
    if (line.starts_with("# start ")) ++starts;
  }
  EXPECT_EQ(starts, 1u);
  EXPECT_EQ(sent, 5u);
  EXPECT_EQ(read, 6u) << "the hello and five answers";
  EXPECT_NE(hello.find("\"tapecheck_engine\""), std::string::npos) << hello;
  std::ofstream(::testing::TempDir() + "engine_log_request.txt") << firstRequest << "\n";
  CommandRun again = tc::testing::runCommand(engine + " < " + ::testing::TempDir() + "engine_log_request.txt");
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(again.out.substr(again.out.find('\n') + 1), firstAnswer + "\n") << "the recorded answer, rerun by hand";
  CommandRun inProcess = runTapecheck("run --cases 5 --engine compiled --engine-log " + log);
  EXPECT_EQ(inProcess.status, 2);
  EXPECT_NE(inProcess.err.find("--engine-log records an engine in another process"), std::string::npos) << inProcess.err;
}

// Without --domain, an engine not tapecheck's own gets the engine verdict (docs/semantics.md §3.9):
// on IEEE carriers the properties that compare results exactly run on the exact domain (marked),
// accuracy and the oracles of special values on every value; exact carriers on every value. With
// --domain, every row is in that domain.
TEST(EngineCmd, TheDefaultRunOfAnotherEngineIsTheEngineVerdict) {
  const std::string engine = std::string(" --engine-cmd '") + TAPECHECK_BINARY + " serve'";
  CommandRun run = runTapecheck("run --cases 30 --seed 2 --carrier all" + engine);
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("the engine verdict (rows marked (exact) on the exact domain, the others on every value)"),
            std::string::npos)
      << run.out;
  auto row = [&](const std::string& property, const std::string& carrier) {
    return run.out.find(fmt::format("\n{:<42} {:<14} ", property, carrier)) != std::string::npos;
  };
  for (const std::string ieee : {"double", "float"}) {
    for (const char* exact : {"compileChecked_context", "compileChecked_backwardDenseFrom", "backwardDenseAllFrom_eq_dense",
                              "determinism", "exact_reference"})
      EXPECT_TRUE(row(exact, ieee + " (exact)")) << exact << " on " << ieee << "\n" << run.out;
    for (const char* everyValue : {"accuracy", "kink_conventions", "domain_errors"})
      EXPECT_TRUE(row(everyValue, ieee)) << everyValue << " on " << ieee << "\n" << run.out;
    EXPECT_FALSE(row("accuracy", ieee + " (exact)")) << run.out;
  }
  EXPECT_TRUE(row("compileChecked_context", "rational")) << run.out;
  EXPECT_TRUE(row("adjoint_identity", "rational")) << run.out;

  CommandRun everyValue = runTapecheck("run --cases 20 --seed 2 --carrier double --domain default" + engine);
  ASSERT_EQ(everyValue.status, 0) << everyValue.out << everyValue.err;
  EXPECT_NE(everyValue.out.find("domain default"), std::string::npos) << everyValue.out;
  EXPECT_EQ(everyValue.out.find("(exact)"), std::string::npos) << everyValue.out;
  EXPECT_EQ(everyValue.out.find("exact_reference"), std::string::npos) << everyValue.out;
}

TEST(EngineCmd, ACrashFailsTheCaseIsShrunkAndTheEngineRestarts) {
  CommandRun run = runTapecheck("run --property compileChecked_context --carrier rational --cases 60 --seed 2 " +
                                misbehaving("crash-on", "mul") + " --save-failures " + saveDir("crash"));
  ASSERT_EQ(run.status, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("engine crashed: signal 11 (Segmentation fault)"), std::string::npos) << run.out;
  nlohmann::json shrunk = savedCase(run.out);
  ASSERT_TRUE(shrunk.is_object()) << run.out;
  EXPECT_EQ(shrunk["nodes"].size(), 1u) << shrunk.dump();
  EXPECT_EQ(shrunk["nodes"][0]["op"], "mul");
  EXPECT_NE(run.out.find("replay: tapecheck replay"), std::string::npos);
  EXPECT_NE(run.out.find("--engine-cmd"), std::string::npos) << "the replay line names the engine command";

  // In a survey the run goes on: the engine is restarted and the other cases are compared.
  CommandRun survey = runTapecheck("run --property compileChecked_context --carrier rational --cases 60 --seed 1 --survey " +
                                   misbehaving("crash-on", "mul") + " --save-failures " + saveDir("crash_survey"));
  ASSERT_EQ(survey.status, 1) << survey.out << survey.err;
  EXPECT_NE(survey.out.find("compileChecked_context                     rational           60"), std::string::npos)
      << survey.out;
  EXPECT_NE(survey.out.find("error"), std::string::npos) << survey.out;
}

TEST(EngineCmd, AnExitFailsTheCaseWithItsStatusAndLastErrorLine) {
  CommandRun run = runTapecheck("run --property compileChecked_context --carrier rational --cases 60 --seed 1 " +
                                misbehaving("exit-on", "mul") + " --save-failures " + saveDir("exit"));
  ASSERT_EQ(run.status, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("engine exited: status 3 (last line on stderr: 'boom: cannot handle mul')"), std::string::npos)
      << run.out;
}

TEST(EngineCmd, AHangFailsTheCaseAfterTheTimeout) {
  CommandRun run = runTapecheck("run --property compileChecked_context --carrier rational --cases 40 --max-size 20 --seed 1 "
                                "--engine-timeout 0.5 " + misbehaving("hang-on", "mul") + " --save-failures " + saveDir("hang"));
  ASSERT_EQ(run.status, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("no answer in 0.5 s"), std::string::npos) << run.out;
  nlohmann::json shrunk = savedCase(run.out);
  ASSERT_TRUE(shrunk.is_object()) << run.out;
  EXPECT_EQ(shrunk["nodes"].size(), 1u) << shrunk.dump();
}

TEST(EngineCmd, GarbageOutputIsAnInputErrorNamingTheLine) {
  CommandRun run = runTapecheck("run --carrier rational --cases 60 --seed 1 " + misbehaving("garbage-on", "mul"));
  ASSERT_EQ(run.status, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("output line "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("'this is not json'"), std::string::npos) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << "one line: " << run.err;
}

TEST(EngineCmd, AMissingFieldIsAnInputError) {
  CommandRun run = runTapecheck("run --carrier rational --cases 60 --seed 1 " + misbehaving("no-context-on", "mul"));
  ASSERT_EQ(run.status, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("missing \"context\""), std::string::npos) << run.err;
}

TEST(EngineCmd, AWrongIdIsAnInputError) {
  CommandRun run = runTapecheck("run --carrier rational --cases 60 --seed 1 " + misbehaving("wrong-id-on", "mul"));
  ASSERT_EQ(run.status, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("(answers come in request order)"), std::string::npos) << run.err;
}

TEST(EngineCmd, GradientsOfTheWrongShapeAreADifferenceNotAnInputError) {
  CommandRun run = runTapecheck("run --property compileChecked_backwardDenseFrom --carrier rational --cases 60 --seed 1 " +
                                misbehaving("wrong-shape-on", "mul") + " --save-failures " + saveDir("shape") +
                                " --json " + saveDir("shape") + ".json");
  ASSERT_EQ(run.status, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("shape"), std::string::npos) << run.out;
  nlohmann::json shrunk = savedCase(run.out);
  ASSERT_TRUE(shrunk.is_object()) << run.out;
  EXPECT_LE(shrunk["nodes"].size(), 3u) << shrunk.dump();
  // The saved failure names the positions it blames; show --dot, which cannot re-run the engine,
  // fills exactly those and says why in its legend.
  const nlohmann::json& positions = shrunk["failure"]["positions"];
  ASSERT_TRUE(positions.is_array() && !positions.empty()) << shrunk.dump();
  std::ifstream json(saveDir("shape") + ".json");
  EXPECT_EQ(nlohmann::json::parse(json)["results"][0]["failure"]["positions"], positions);
  std::string file = run.out.substr(run.out.find("saved: ") + 7, run.out.find('\n', run.out.find("saved: ")) - run.out.find("saved: ") - 7);
  CommandRun dot = runTapecheck("show --dot " + file);
  ASSERT_EQ(dot.status, 0) << dot.err;
  EXPECT_NE(dot.out.find("red fill: blamed by the saved failure of compileChecked_backwardDenseFrom (not re-checked: its "
                         "engine is another process: replay it with --engine-cmd)"),
            std::string::npos)
      << dot.out;
  for (const auto& p : positions) {
    std::size_t line = dot.out.find(fmt::format("  p{} [label=", p.get<std::size_t>()));
    ASSERT_NE(line, std::string::npos) << dot.out;
    EXPECT_NE(dot.out.substr(line, dot.out.find('\n', line) - line).find("fillcolor"), std::string::npos) << dot.out;
  }
  EXPECT_EQ(static_cast<std::size_t>(std::count(dot.out.begin(), dot.out.end(), '#')), positions.size()) << dot.out;
}

TEST(EngineCmd, AnUnsupportedAnswerIsCountedNotFailed) {
  CommandRun run = runTapecheck("run --property compileChecked_context --carrier rational --cases 60 --seed 1 " +
                                misbehaving("unsupported-on", "mul"));
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("unsupported"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("mul"), std::string::npos) << run.out;
}

TEST(EngineCmd, AnEngineThatExitsAtStartIsAnInputError) {
  CommandRun run = runTapecheck("run --cases 5 " + misbehaving("exit-at-start"));
  ASSERT_EQ(run.status, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("exited before its hello: status 1 (last line on stderr: 'engine cannot start: no GPU')"),
            std::string::npos)
      << run.err;
}

TEST(EngineCmd, AHelloOfAnotherVersionIsAnInputError) {
  CommandRun run = runTapecheck("run --cases 5 " + misbehaving("bad-hello"));
  ASSERT_EQ(run.status, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("the engine speaks protocol version 2; this tapecheck speaks version 1"), std::string::npos)
      << run.err;
}

TEST(EngineCmd, EngineAndEngineCmdTogetherIsAUsageError) {
  EXPECT_EQ(runTapecheck("run --engine tape --engine-cmd 'true'").status, 2);
  EXPECT_EQ(runTapecheck("run --engine-cmd 'true' --engine-timeout 0").status, 2);
}

TEST(EngineCmd, ReplayAndCheckReachTheEngineToo) {
  CommandRun run = runTapecheck("run --property compileChecked_context --carrier rational --cases 60 --seed 1 " +
                                misbehaving("crash-on", "mul") + " --save-failures " + saveDir("replay"));
  ASSERT_EQ(run.status, 1) << run.out << run.err;
  const std::string saved = run.out.substr(run.out.find("saved: ") + 7, run.out.find('\n', run.out.find("saved: ")) -
                                                                           run.out.find("saved: ") - 7);
  CommandRun replay = runTapecheck("replay " + saved + " " + misbehaving("crash-on", "mul"));
  EXPECT_EQ(replay.status, 1) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("engine crashed: signal 11"), std::string::npos) << replay.out;
  CommandRun passing = runTapecheck("replay " + saved + " " + misbehaving("crash-on", "div"));
  EXPECT_EQ(passing.status, 0) << passing.out << passing.err;
  // Without the command, the file's engine name is not a built-in one.
  CommandRun unnamed = runTapecheck("replay " + saved);
  EXPECT_EQ(unnamed.status, 2);
  EXPECT_NE(unnamed.err.find("--engine-cmd"), std::string::npos) << unnamed.err;

  // One property: each of the others would shrink the same crash again, restarting the engine per step.
  CommandRun check = runTapecheck("check " + source("examples/graphs/mlp.json") +
                                  " --property compileChecked_context --carrier rational --cases 10 " +
                                  misbehaving("crash-on", "linear"));
  EXPECT_EQ(check.status, 1) << check.out << check.err;
  EXPECT_NE(check.out.find("engine crashed"), std::string::npos) << check.out;
}

TEST(EngineCmd, TheEngineNeverOutlivesTapecheck) {
  const std::string pidFile = ::testing::TempDir() + "engine_cmd_pid_" + std::to_string(getpid());
  std::remove(pidFile.c_str());
  // tapecheck is killed outright while it runs the engine; the kernel then kills the engine.
  std::string command = std::string("(") + TAPECHECK_BINARY + " run --cases 100000 --carrier rational " +
                        misbehaving("pid-file", pidFile) + " >/dev/null 2>&1 & sleep 1.5; kill -9 $!; wait) 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()) >= 0, true);
  std::ifstream file(pidFile);
  pid_t engine = 0;
  ASSERT_TRUE(file >> engine) << "the engine did not start";
  // Gone, or a zombie waiting for whoever adopted it to reap it.
  auto isGone = [&] {
    std::ifstream stat("/proc/" + std::to_string(engine) + "/stat");
    std::string pid, name, state;
    return !(stat >> pid >> name >> state) || state == "Z";
  };
  bool gone = false;
  for (int k = 0; k < 100 && !gone; ++k) {
    gone = isGone();
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone) << "engine process " << engine << " outlived tapecheck";
}

}  // namespace
