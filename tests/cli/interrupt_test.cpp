// No engine process outlives tapecheck (docs/threat-model.md §5): a real `tapecheck run
// --engine-cmd CMD` is sent SIGINT, SIGTERM, SIGHUP or SIGKILL mid-run, with CMD a simple command or
// one with shell syntax (&&, ;, a pipeline, VAR=x, $(...)), and an engine that starts a child in a
// session of its own and a daemon that double-forked (tests/cli/engines/lingering_engine.py). After
// tapecheck has ended (of that signal), no process of the engine's tree is left. A run that ends by
// itself leaves none either.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli/run_tapecheck.h"

namespace {

using tc::testing::source;
using Clock = std::chrono::steady_clock;

// The processes the engine recorded (lingering_engine.py), and its process groups (one for each
// time tapecheck started it).
struct Tree {
  std::vector<pid_t> pids, groups;
  bool ready = false;
};

Tree readTree(const std::string& path) {
  Tree tree;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind;
    long pid = 0, group = 0;
    words >> kind;
    if (kind == "ready") tree.ready = true;
    else if (words >> pid) tree.pids.push_back(static_cast<pid_t>(pid));
    if (kind == "engine" && words >> group) tree.groups.push_back(static_cast<pid_t>(group));
  }
  return tree;
}

// The state letter and process group of `pid` from /proc, or false when there is no such process.
bool statOf(pid_t pid, char& state, pid_t& group) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return false;
  std::istringstream rest(text.substr(text.rfind(')') + 1));
  long parent = 0, pgid = 0;
  if (!(rest >> state >> parent >> pgid)) return false;
  group = static_cast<pid_t>(pgid);
  return true;
}

// Running: not gone, and not a zombie (an exit waiting for whoever adopted it to reap it).
bool running(pid_t pid) {
  char state = 0;
  pid_t group = 0;
  return statOf(pid, state, group) && state != 'Z';
}

// The processes still running of the tree: its recorded ones, and any in the engine's groups.
std::vector<pid_t> survivors(const Tree& tree) {
  std::vector<pid_t> left;
  for (pid_t pid : tree.pids)
    if (running(pid)) left.push_back(pid);
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    char state = 0;
    pid_t group = 0;
    if (statOf(pid, state, group) && state != 'Z' &&
        std::find(tree.groups.begin(), tree.groups.end(), group) != tree.groups.end() &&
        std::find(left.begin(), left.end(), pid) == left.end())
      left.push_back(pid);
  }
  return left;
}

// Waits (at most `limit`, a give-up bound, not a speed requirement) until `done()`.
template <class Done>
bool within(std::chrono::seconds limit, Done done) {
  const auto deadline = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// The engine command: the lingering engine, written as `shape` says (CMD stands for it).
std::string engineCommand(const std::string& shape, const std::string& pids) {
  const std::string engine =
      "/usr/bin/python3 " + source("tests/cli/engines/lingering_engine.py") + " " + TAPECHECK_BINARY + " " + pids;
  std::string command = shape;
  command.replace(command.find("CMD"), 3, engine);
  return command;
}

// Starts tapecheck with `arguments` (no shell between: its own exit status is seen), its output
// thrown away, the signals it handles at their defaults whatever this test inherited.
pid_t startTapecheck(const std::vector<std::string>& arguments) {
  std::vector<std::string> words{TAPECHECK_BINARY};
  words.insert(words.end(), arguments.begin(), arguments.end());
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(signal, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

std::string pidsFile(const std::string& name) {
  std::string path = ::testing::TempDir() + "interrupt_" + name + "_" + std::to_string(::getpid()) + ".txt";
  std::remove(path.c_str());
  return path;
}

struct Case {
  int signal;
  const char* shape;
  const char* name;
};

void PrintTo(const Case& c, std::ostream* out) { *out << "signal " << c.signal << ", " << c.shape; }

class Interrupted : public ::testing::TestWithParam<Case> {};

TEST_P(Interrupted, LeavesNoProcessOfTheEnginesTreeAndEndsOfTheSignal) {
  const Case c = GetParam();
  const std::string pids = pidsFile(c.name);
  const pid_t tapecheck = startTapecheck({"run", "--cases", "100000", "--carrier", "rational", "--engine-cmd",
                                          engineCommand(c.shape, pids)});
  ASSERT_GT(tapecheck, 0);
  int status = 0;
  const bool started = within(std::chrono::seconds(60), [&] { return readTree(pids).ready || ::waitpid(tapecheck, &status, WNOHANG) != 0; });
  if (!started || !readTree(pids).ready) {
    ::kill(tapecheck, SIGKILL);
    ::waitpid(tapecheck, &status, 0);
    FAIL() << "the engine did not start (" << c.shape << ")";
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // cases are running

  ASSERT_EQ(::kill(tapecheck, c.signal), 0);
  ASSERT_EQ(::waitpid(tapecheck, &status, 0), tapecheck);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == c.signal)
      << "tapecheck ended with status " << status << ", not of signal " << c.signal;
  const Tree tree = readTree(pids);  // every start of the engine, if there were several
  ASSERT_GE(tree.pids.size(), 4u) << "engine, serve, setsid, daemon";

  // A signal tapecheck handles: it waited for the guardians, which waited for the whole tree.
  if (c.signal != SIGKILL) {
    EXPECT_EQ(survivors(tree).size(), 0u) << "left when tapecheck ended";
  }
  // SIGKILL: the guardians learn of it from the kernel and end the trees right after.
  std::vector<pid_t> left;
  within(std::chrono::seconds(10), [&] { return (left = survivors(tree)).empty(); });
  for (pid_t pid : left) ::kill(pid, SIGKILL);  // leave nothing behind for the next test
  EXPECT_TRUE(left.empty()) << left.size() << " process(es) of the engine's tree outlived tapecheck, the first "
                            << (left.empty() ? 0 : left[0]) << " (" << c.shape << ")";
}

constexpr const char* kShapes[][2] = {
    {"CMD", "simple"},
    {"cd / && CMD", "and"},
    {"true; CMD", "semicolon"},
    {"cat | CMD", "pipeline"},
    {"LINGER=1 CMD", "assignment"},
    {"$(echo exec) CMD 2>/dev/null", "substitution"},
};

std::vector<Case> allCases() {
  std::vector<Case> cases;
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGKILL})
    for (const auto& shape : kShapes) cases.push_back({signal, shape[0], shape[1]});
  return cases;
}

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
  const char* signal = info.param.signal == SIGINT    ? "SIGINT"
                       : info.param.signal == SIGTERM ? "SIGTERM"
                       : info.param.signal == SIGHUP  ? "SIGHUP"
                                                      : "SIGKILL";
  return std::string(signal) + "_" + info.param.name;
}

INSTANTIATE_TEST_SUITE_P(EachSignalAndCommand, Interrupted, ::testing::ValuesIn(allCases()), caseName);

TEST(Interrupt, ARunThatEndsByItselfLeavesNoProcess) {
  const std::string pids = pidsFile("normal");
  const pid_t tapecheck = startTapecheck({"run", "--cases", "3", "--carrier", "rational", "--property", "determinism",
                                          "--engine-cmd", engineCommand("cd / && CMD", pids)});
  int status = 0;
  ASSERT_EQ(::waitpid(tapecheck, &status, 0), tapecheck);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  const Tree tree = readTree(pids);
  ASSERT_TRUE(tree.ready);
  EXPECT_EQ(survivors(tree).size(), 0u) << "left when tapecheck ended";  // it waited for the guardian
  std::vector<pid_t> left;
  within(std::chrono::seconds(10), [&] { return (left = survivors(tree)).empty(); });
  for (pid_t pid : left) ::kill(pid, SIGKILL);
  EXPECT_TRUE(left.empty()) << left.size() << " process(es) outlived the run";
}

}  // namespace
