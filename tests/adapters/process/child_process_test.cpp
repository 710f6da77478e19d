// The child process under its guardian (adapters/process/child_process.h): the engine's whole tree
// ends with it, a process that left the engine's group or session (setsid) included, however it
// ends (stop, destruction, the engine's own exit, a restart); the engine's input still ends when
// tapecheck closes it; and the engine's exit status or signal is still the one reported.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "adapters/process/child_process.h"

namespace tc::process {
namespace {

using namespace std::chrono_literals;

bool running(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return false;
  std::istringstream rest(text.substr(text.rfind(')') + 1));
  char state = 0;
  return (rest >> state) && state != 'Z';
}

// Whether `pid` is gone within a give-up bound of 10 s (not a speed requirement).
bool ends(pid_t pid) {
  for (int k = 0; k < 500; ++k) {
    if (!running(pid)) return true;
    std::this_thread::sleep_for(20ms);
  }
  ::kill(pid, SIGKILL);  // leave nothing behind
  return false;
}

// A command whose first line is the pid of a process it started in a session of its own (which
// holds the output pipe too), and which then copies its input to its output.
constexpr const char* kLeavesASession = "setsid sh -c 'echo $$; exec sleep 3600' & exec cat";

pid_t firstLinePid(ChildProcess& child) {
  LineOutcome line = child.readLine(10s, 100);
  EXPECT_EQ(line.kind, LineOutcome::Kind::line);
  return line.kind == LineOutcome::Kind::line ? static_cast<pid_t>(std::stol(line.line)) : 0;
}

TEST(ChildProcess, StopEndsAProcessThatLeftTheEnginesSession) {
  auto child = ChildProcess::start(kLeavesASession);
  ASSERT_TRUE(child) << child.error().message;
  const pid_t escaped = firstLinePid(*child);
  ASSERT_GT(escaped, 0);
  ASSERT_TRUE(running(escaped));
  child->stop();
  EXPECT_EQ(child->exitDescription(), "status 0") << "cat saw its input end";
  EXPECT_TRUE(ends(escaped)) << escaped;
}

TEST(ChildProcess, DestructionEndsAProcessThatLeftTheEnginesSession) {
  pid_t escaped = 0;
  {
    auto child = ChildProcess::start(kLeavesASession);
    ASSERT_TRUE(child) << child.error().message;
    escaped = firstLinePid(*child);
    ASSERT_GT(escaped, 0);
  }
  EXPECT_TRUE(ends(escaped)) << escaped;
}

TEST(ChildProcess, AnEngineThatExitsTakesWhatItLeftWithIt) {
  // The escaped process holds the output: its end is seen only because the guardian ends it.
  auto child = ChildProcess::start("setsid sh -c 'echo $$; exec sleep 3600' & read -r line; exit 3");
  ASSERT_TRUE(child) << child.error().message;
  const pid_t escaped = firstLinePid(*child);
  child->send("go\n");
  EXPECT_EQ(child->readLine(10s, 100).kind, LineOutcome::Kind::exited);
  EXPECT_EQ(child->exitDescription(), "status 3");
  EXPECT_TRUE(ends(escaped)) << escaped;
}

TEST(ChildProcess, EveryRestartLeavesNothing) {
  std::vector<pid_t> escaped;
  for (int restart = 0; restart < 3; ++restart) {
    auto child = ChildProcess::start(kLeavesASession);
    ASSERT_TRUE(child) << child.error().message;
    escaped.push_back(firstLinePid(*child));
    child->stop(100ms);
  }
  for (pid_t pid : escaped) EXPECT_TRUE(ends(pid)) << pid;
}

TEST(ChildProcess, AForkedEngineThatLeftItsSessionEndsToo) {
  auto child = ChildProcess::fork([](int in, std::FILE* out) {
    const pid_t helper = ::fork();
    if (helper == 0) {
      ::setsid();
      ::pause();
      ::_exit(0);
    }
    std::fprintf(out, "%d\n", static_cast<int>(helper));
    std::fflush(out);
    char byte;
    while (::read(in, &byte, 1) > 0) {
    }
    return 5;
  });
  ASSERT_TRUE(child) << child.error().message;
  const pid_t escaped = firstLinePid(*child);
  ASSERT_GT(escaped, 0);
  child->stop();
  EXPECT_EQ(child->exitDescription(), "status 5") << "the body saw its input end and returned";
  EXPECT_TRUE(ends(escaped)) << escaped;
}

TEST(ChildProcess, TheEnginesSignalIsReportedThroughItsGuardian) {
  for (const char* command : {"kill -SEGV $$", "sh -c 'kill -SEGV $$'"}) {
    auto child = ChildProcess::start(command);
    ASSERT_TRUE(child) << child.error().message;
    EXPECT_EQ(child->readLine(10s, 100).kind, LineOutcome::Kind::exited);
    EXPECT_EQ(child->exitDescription(), "signal 11 (Segmentation fault)") << command;
  }
  auto killed = ChildProcess::start("sleep 3600");
  ASSERT_TRUE(killed);
  killed->stop(10ms);
  EXPECT_EQ(killed->exitDescription(), "signal 9 (Killed)");
}

// The line buffer on its own: lines cut into reads of every size from 1 to 7 bytes come out whole
// and in order, the last one without a '\n' is left as the rest; a line over the limit is known
// once the limit is passed, and a reader is never offered room past it.
TEST(LineBuffer, TakesEveryLineWholeWhateverTheReads) {
  std::string text;
  for (int k = 0; k < 200; ++k) text += std::string(static_cast<std::size_t>(k % 13), static_cast<char>('a' + k % 26)) + "\n";
  text += "last";
  for (std::size_t read = 1; read <= 7; ++read) {
    LineBuffer buffer;
    std::vector<std::string> lines;
    std::string line;
    for (std::size_t at = 0; at < text.size(); at += read) {
      buffer.append(text.data() + at, std::min(read, text.size() - at), 100);
      while (buffer.take(line, 100) == LineBuffer::Next::line) lines.push_back(line);
    }
    ASSERT_EQ(lines.size(), 200u) << read;
    for (int k = 0; k < 200; ++k) EXPECT_EQ(lines[k], std::string(static_cast<std::size_t>(k % 13), static_cast<char>('a' + k % 26)));
    EXPECT_EQ(buffer.rest(), "last");
    EXPECT_EQ(buffer.held(), 0u);
  }
  LineBuffer buffer;
  std::string line;
  buffer.append("12345", 5, 5);
  EXPECT_EQ(buffer.room(5), 1u);
  EXPECT_EQ(buffer.take(line, 5), LineBuffer::Next::none);
  buffer.append("6", 1, 5);
  EXPECT_EQ(buffer.room(5), 0u);
  EXPECT_EQ(buffer.take(line, 5), LineBuffer::Next::tooLong);
  LineBuffer exact;
  exact.append("12345\n", 6, 5);
  ASSERT_EQ(exact.take(line, 5), LineBuffer::Next::line);
  EXPECT_EQ(line, "12345");
  // No limit (SIZE_MAX, an isolated engine's server): room never wraps to 0, which a reader would
  // take for the end of its input.
  LineBuffer unlimited;
  EXPECT_EQ(unlimited.room(SIZE_MAX), SIZE_MAX);
  unlimited.append("ab", 2, SIZE_MAX);
  EXPECT_GT(unlimited.room(SIZE_MAX), 0u);
  EXPECT_EQ(unlimited.take(line, SIZE_MAX), LineBuffer::Next::none);
}

// A line that arrives in thousands of small writes is read whole, and so is the line after it
// (the reader searches each byte for '\n' once, not the whole line after every read).
TEST(ChildProcess, ALineMadeOfManySmallWritesIsReadWhole) {
  auto child = ChildProcess::start(
      "exec python3 -c 'import os, time\n"
      "for k in range(3000):\n"
      "    os.write(1, b\"ab\")\n"
      "    if k % 500 == 0: time.sleep(0.01)\n"
      "os.write(1, b\"\\nsecond\\nthird\")'");
  ASSERT_TRUE(child) << child.error().message;
  LineOutcome first = child->readLine(30s, 1 << 20);
  ASSERT_EQ(first.kind, LineOutcome::Kind::line);
  EXPECT_EQ(first.line.size(), 6000u);
  EXPECT_EQ(first.line.find_first_not_of("ab"), std::string::npos);
  LineOutcome second = child->readLine(30s, 1 << 20);
  ASSERT_EQ(second.kind, LineOutcome::Kind::line);
  EXPECT_EQ(second.line, "second");
  EXPECT_EQ(child->readLine(30s, 1 << 20).kind, LineOutcome::Kind::exited) << "a last line without '\\n' is not an answer";
}

// A line over the limit is refused once the limit is read: the rest is never read into memory. The
// engine here writes 64 MiB without a '\n' and only then creates a file; the pipe holds far less
// than that, so the file exists only if tapecheck read (nearly) the whole line.
TEST(ChildProcess, ALineOverTheLimitIsRefusedWithoutReadingTheRestOfIt) {
  const std::string done = ::testing::TempDir() + "long_line_written";
  std::remove(done.c_str());
  auto child = ChildProcess::start("head -c 67108864 /dev/zero | tr '\\0' x; touch " + done + "; exec sleep 600");
  ASSERT_TRUE(child) << child.error().message;
  EXPECT_EQ(child->readLine(60s, 1 << 20).kind, LineOutcome::Kind::tooLong);
  EXPECT_FALSE(std::ifstream(done).good()) << "the whole 64 MiB line was read before it was refused";
  child->stop(10ms);
}

}  // namespace
}  // namespace tc::process
