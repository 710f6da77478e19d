#pragma once
// A child process spoken to in lines: its standard input and output are pipes, its standard error
// is kept (the last lines, for messages). POSIX (Linux): the engine runs `/bin/sh -c COMMAND` (a
// simple command is exec'd by the shell), or a function of this program in a forked copy of it.
//
// No engine process outlives tapecheck (docs/threat-model.md §5). tapecheck's direct child is a
// guardian, not the engine: a forked copy of tapecheck, in a process group of its own, that
//   - is a child subreaper (PR_SET_CHILD_SUBREAPER), so every orphan of the engine's tree becomes
//     its child, even one that left the engine's process group or session (setsid, a daemon's
//     double fork);
//   - forks the engine into a process group of its own (the shell, a pipeline's processes and what
//     they start without setsid), with PR_SET_PDEATHSIG(SIGKILL) on the guardian, and then holds
//     no descriptor of tapecheck's (not the engine's pipes, not tapecheck's output);
//   - when the engine ends, when tapecheck sends it SIGTERM (stop, a timeout, the destructor,
//     tapecheck's SIGINT/SIGTERM/SIGHUP handlers, interrupt.h), or when tapecheck dies, even by
//     SIGKILL (PR_SET_PDEATHSIG(SIGTERM) on tapecheck's thread): kills the engine's group, then
//     every child it has until none is left (from /proc), and exits the way the engine did (its
//     status, or its signal without a core dump), so exitDescription() is the engine's.
// Limits: a process of the tree that kills its guardian with SIGKILL leaves the rest to the
// engine's own parent-death signal (the shell's children then survive); a process started outside
// the tree (systemd-run, at, a service asked over a socket) is not the tree's.
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/process/line_buffer.h"
#include "core/support/result.h"

namespace tc::process {

//! How much of a child's standard error is kept (its tail) for messages.
inline constexpr std::size_t kErrorTailBytes = 16384;

//! How a process ended, for messages: "status 1", or "signal 11 (Segmentation fault)" when
//! `bySignal` (then `number` is the signal).
std::string endDescription(bool bySignal, int number);

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
  //! Starts `/bin/sh -c command` (under its guardian). Fails only when the system cannot (pipes, fork).
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
  //! than `maxLine` bytes is `tooLong`, known once `maxLine` bytes without a '\n' are read (the rest
  //! of it is not read). At end of output the child is reaped: `exited`. Linear in the bytes read.
  LineOutcome readLine(std::chrono::milliseconds timeout, std::size_t maxLine);
  //! Closes the child's input, waits up to `grace` for it to exit, then ends its whole tree.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(1000));

  //! How the child ended, once it has: "status 1", "signal 11 (Segmentation fault)".
  std::string exitDescription() const;
  //! The last `count` non-empty lines the child wrote to its standard error (of the last
  //! kErrorTailBytes), oldest first; what the pipe holds now is read first, without waiting.
  std::vector<std::string> lastErrorLines(std::size_t count);

 private:
  ChildProcess() = default;
  // Forks the guardian with the three pipes; its engine runs `inChild` with them and never returns
  // (`execs`: it only execs, so it may share the guardian's memory until then).
  static Result<ChildProcess> launch(const std::function<void(const int* in, const int* out, const int* err)>& inChild,
                                     bool execs);
  bool pump(std::chrono::steady_clock::time_point deadline, std::size_t maxLine);
  void drainError();
  bool reap(bool block);
  // Whether the guardian ended within `timeout` (reaped if so).
  bool waitFor(std::chrono::milliseconds timeout);
  // Asks the guardian to end the engine's tree and waits for it (SIGKILL after 5 s).
  void terminate();
  void closeAll();

  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  std::string pendingInput_, errorTail_;
  LineBuffer output_;
  bool exited_ = false;
  int status_ = 0;
};

}  // namespace tc::process
