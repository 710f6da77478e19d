#pragma once
// A child process spoken to in lines: its standard input and output are pipes, its standard error
// is kept (the last lines, for messages). POSIX (Linux): the child runs `/bin/sh -c COMMAND`, or a
// function of this program in a forked copy of it, in a process group of its own, and is killed
// with that group when this object goes. A simple command
// (`python3 engine.py --flag`) is exec'd by the shell, so the kernel also kills it when tapecheck
// dies (PR_SET_PDEATHSIG); a command with shell syntax (`cd x && ./engine`) loses only that last
// guarantee, and its engine still sees its input end.
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "core/support/result.h"

namespace tc::process {

//! What waiting for a line gave: the line (without its '\n'), or why there is none.
struct LineOutcome {
  enum class Kind { line, timeout, exited, tooLong };
  Kind kind;
  std::string line;  //!< kind == line
};

//! A running child. Writing to a child that has exited is not an error here (SIGPIPE is ignored
//! process-wide once a child starts); the next read reports the exit.
class ChildProcess {
 public:
  //! Starts `/bin/sh -c command`. Fails only when the system cannot (pipes, fork).
  static Result<ChildProcess> start(const std::string& command);
  //! Forks this process; the copy runs `body` with the file descriptor of its input and a stream
  //! for its output, and exits with what `body` returns. The copy's standard output and error both
  //! go to the kept error tail. This process must have one thread (tapecheck has).
  static Result<ChildProcess> fork(const std::function<int(int in, std::FILE* out)>& body);

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  //! Queues bytes for the child's standard input; they are written while waiting for lines, so a
  //! child that answers while it reads never blocks either side.
  void send(std::string_view bytes);
  //! Writes queued input as far as the pipe takes it now, without waiting.
  void flushInput();
  //! The next line of the child's standard output, waiting at most `timeout` for it; a line longer
  //! than `maxLine` bytes is `tooLong`. At end of output the child is reaped: `exited`.
  LineOutcome readLine(std::chrono::milliseconds timeout, std::size_t maxLine);
  //! Closes the child's input, waits up to `grace` for it to exit, then kills its process group.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(1000));

  //! How the child ended, once it has: "status 1", "signal 11 (Segmentation fault)".
  std::string exitDescription() const;
  //! The last non-empty line the child wrote to its standard error, or empty.
  std::string lastErrorLine() const;

 private:
  ChildProcess() = default;
  // Forks with the three pipes; the child runs `inChild` with them and never returns.
  static Result<ChildProcess> launch(
      const std::function<void(const int* in, const int* out, const int* err, pid_t parent)>& inChild);
  bool pump(std::chrono::steady_clock::time_point deadline);
  void drainError();
  bool reap(bool block);
  void killGroup();
  void closeAll();

  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  std::string pendingInput_, output_, errorTail_;
  bool exited_ = false;
  int status_ = 0;
};

}  // namespace tc::process
