// `--engine-cmd`: an engine in another process, through the engine protocol
// (docs/engine-protocol.md). tapecheck's own engine behind `tapecheck serve` passes; an engine
// that crashes, exits or hangs on a case fails that case (shrunk, the engine restarted); one that
// breaks the protocol is an input error naming the line; one that never says hello too. Its text
// reaches the terminal, the reports and the saved cases escaped and cut (docs/threat-model.md §2).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/support/text.h"
#include "tests/cli/run_tapecheck.h"

namespace {

using tc::testing::CommandRun;
using tc::testing::runCommand;
using tc::testing::runTapecheck;
using tc::testing::source;
using tc::escape;

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

// An answer far larger than its case can need (a 64 MiB line of 16 million values for a case of a
// few) is refused as soon as it passes what the case can need, before its values are built, in one
// line naming the request; within 1 GiB of address space, where building its 16 million rationals
// alone took 0.8 GB.
TEST(EngineCmd, AnAnswerLargerThanTheCaseCanNeedIsRefusedBeforeItIsBuilt) {
  CommandRun run = runCommand("ulimit -v 1048576; " + std::string(TAPECHECK_BINARY) +
                              " run --property compileChecked_context --carrier rational --cases 60 --seed 1 " +
                              misbehaving("flood-on", "mul"));
  ASSERT_EQ(run.status, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("output line "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(": context[0].values: more values than the case can need ("), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(": answer "), std::string::npos) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << "one line: " << run.err;
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

// Where `text` breaks the promise of docs/threat-model.md §2 (valid UTF-8; no control character
// but the line breaks tapecheck writes itself), or empty.
std::string brokenPromiseIn(const std::string& text) {
  try {
    (void)nlohmann::json(text).dump();  // throws on a byte that is not UTF-8
  } catch (const nlohmann::json::exception& e) {
    return e.what();
  }
  for (std::size_t k = 0; k < text.size(); ++k) {
    const auto byte = static_cast<unsigned char>(text[k]);
    if ((byte < 0x20 && byte != '\n') || byte == 0x7f) return fmt::format("control byte 0x{:02x} at {}", byte, k);
  }
  return "";
}

std::string fileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A hostile engine's error message, and what tapecheck must show in its place.
struct HostileMessage {
  const char* mode;
  const char* shown;
};

void PrintTo(const HostileMessage& message, std::ostream* out) { *out << message.mode; }

class HostileText : public ::testing::TestWithParam<HostileMessage> {};

// The message reaches stdout, the JSON and JUnit reports and the saved case escaped (and cut), and
// the failure is saved and reported like any other: exit 1, never 2.
TEST_P(HostileText, IsEscapedAndCutEverywhereAndTheFailureIsStillSavedAndReported) {
  const std::string base = saveDir(std::string("hostile_") + GetParam().mode);
  std::filesystem::remove_all(base);
  CommandRun run = runTapecheck("run --property compileChecked_context --carrier rational --cases 60 --seed 1 " +
                                misbehaving(GetParam().mode, "mul") + " --save-failures " + base + " --json " + base +
                                ".json --junit " + base + ".xml");
  ASSERT_EQ(run.status, 1) << escape(run.out, 5000) << run.err;
  EXPECT_EQ(brokenPromiseIn(run.out), "") << escape(run.out, 5000);
  EXPECT_EQ(brokenPromiseIn(run.err), "") << run.err;
  EXPECT_NE(run.out.find(GetParam().shown), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("\nFAKE"), std::string::npos) << run.out;
  EXPECT_LT(run.out.size(), 20000u) << "a long message is cut";

  const std::string json = fileText(base + ".json"), junit = fileText(base + ".xml");
  EXPECT_LT(json.size(), 100000u);
  EXPECT_LT(junit.size(), 100000u);
  nlohmann::json report = nlohmann::json::parse(json, nullptr, false);
  ASSERT_TRUE(report.is_object()) << "the JSON report is written and parses";
  EXPECT_NE(report["results"][0]["failure"]["why"].get<std::string>().find(GetParam().shown), std::string::npos)
      << report["results"][0]["failure"].dump();
  EXPECT_EQ(brokenPromiseIn(junit), "") << junit;
  EXPECT_NE(junit.find(GetParam().shown), std::string::npos) << junit;

  nlohmann::json saved = savedCase(run.out);
  ASSERT_TRUE(saved.is_object()) << "the failure is saved: " << run.out;
  EXPECT_NE(saved["failure"]["why"].get<std::string>().find(GetParam().shown), std::string::npos) << saved["failure"].dump();
}

INSTANTIATE_TEST_SUITE_P(
    EngineCmd, HostileText,
    ::testing::Values(HostileMessage{"escape-on", "the engine failed: \\x1b[2J\\x1b[H\\x1b]0;pwned\\x07\\x1b[1;32mlooks fine\\x1b[0m"},
                      HostileMessage{"forge-on", "the engine failed: boom\\x0d\\x0aFAKE: all passed\\x0a"},
                      HostileMessage{"nul-on", "the engine failed: before\\x00after\\x00"},
                      HostileMessage{"bad-utf8-on", "the engine failed: caf\\xc3 \\xff\\xfe end"},
                      HostileMessage{"huge-on", "xxxxxxxxxx... (10484779 more bytes)"}),
    [](const auto& info) {
      std::string name = info.param.mode;
      std::erase(name, '-');
      return name;
    });

// The engine's profile name (shown in the header and in every failure) is escaped too.
TEST(EngineCmd, AHostileProfileNameIsEscaped) {
  CommandRun run = runTapecheck("run --property compileChecked_context --carrier rational --cases 10 --seed 1 " +
                                misbehaving("hostile-name"));
  ASSERT_EQ(run.status, 0) << escape(run.out, 5000) << run.err;
  EXPECT_EQ(brokenPromiseIn(run.out), "") << escape(run.out, 5000);
  EXPECT_NE(run.out.find("(\\x1b]0;pwned\\x07\\x1b[2Jengine\\x0d\\x0aFAKE: all passed)"), std::string::npos) << run.out;
}

// A one-line error that quotes the start of an engine's line keeps valid UTF-8 where the cut falls
// inside a character (report escapes what is not UTF-8).
TEST(EngineCmd, AnErrorQuotingAnEnginesLineStaysValidUtf8) {
  CommandRun run = runTapecheck("run --cases 5 " + misbehaving("hello-list"));
  ASSERT_EQ(run.status, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("the hello must be a JSON object, got [\"x\xc3\xa9"), std::string::npos) << run.err;
  EXPECT_EQ(brokenPromiseIn(run.err.substr(0, run.err.size() - 1)), "") << escape(run.err, 1000);
}

// A saved failure's engine_cmd is never run, only shown in replay's refusal: escaped there.
TEST(EngineCmd, ReplaysRefusalShowsTheFilesEngineCommandEscaped) {
  const std::string file = saveDir("hostile_engine_cmd") + ".json";
  nlohmann::json doc = nlohmann::json::parse(fileText(source("examples/graphs/mlp.json")));
  doc["failure"] = {{"property", "compileChecked_context"}, {"carrier", "rational"},
                    {"engine_cmd", "python3 e.py\x1b[2J\r\nFAKE: all passed\x1b]0;pwned\x07"}};
  std::ofstream(file) << doc.dump();
  CommandRun run = runTapecheck("replay " + file);
  ASSERT_EQ(run.status, 2) << run.out << run.err;
  EXPECT_EQ(brokenPromiseIn(run.err.substr(0, run.err.size() - 1)), "") << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find("--engine-cmd 'python3 e.py\\x1b[2J\\x0d\\x0aFAKE: all passed\\x1b]0;pwned\\x07'"),
            std::string::npos)
      << run.err;
}

// A row that compared nothing fails; a run in which no row compared anything is an error (exit 2,
// one line), which CI cannot take for a verdict. A run that compared some cases is not.
TEST(EngineCmd, ARunThatComparedNothingAtAllIsAnError) {
  CommandRun run = runTapecheck("run --carrier rational --cases 20 --seed 1 " + misbehaving("unsupported-all"));
  ASSERT_EQ(run.status, 2) << run.out << run.err;
  EXPECT_EQ(run.err.find("tapecheck: run: nothing was compared: none of the "), 0u) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.out.find("nothing compared: 20 of 20 cases ("), std::string::npos) << run.out;
  CommandRun some = runTapecheck("run --property compileChecked_context --carrier rational --cases 60 --seed 1 " +
                                 misbehaving("unsupported-on", "mul"));
  EXPECT_EQ(some.status, 0) << some.out << some.err;
}

}  // namespace
