#include "adapters/process/child_process.h"

#include "adapters/process/interrupt.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <utility>

#include <fmt/format.h>

namespace tc::process {
namespace {

void closeFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void setNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// In the engine (the guardian's child), first thing: its own process group, killed with the
// guardian; the signals as tapecheck had them before, none of its handlers.
void becomeEngine(pid_t guardian, const sigset_t& mask) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != guardian) ::_exit(127);  // the guardian died before prctl took effect
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    if (::sigaction(signal, nullptr, &current) == 0 && current.sa_handler != SIG_IGN) ::signal(signal, SIG_DFL);
  }
  ::signal(SIGPIPE, SIG_DFL);  // an ignored disposition would survive exec
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);
}

// In the engine between fork and exec: only async-signal-safe calls.
[[noreturn]] void execChild(const char* command, int in, int out, int err) {
  if (::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(127);
  ::execl("/bin/sh", "sh", "-c", command, static_cast<char*>(nullptr));
  ::_exit(127);
}

// A simple command (words, no shell syntax, no leading assignment) runs as `exec COMMAND`, so the
// child is the command itself: its own exit status and signal are reported, and the kernel kills
// it when tapecheck dies. Anything else runs as written, under the shell.
std::string shellLine(const std::string& command) {
  const bool syntax = command.find_first_of(";&|()<>`\n\\") != std::string::npos || command.find("$(") != std::string::npos;
  const std::size_t firstWord = command.find_first_not_of(" \t");
  const std::size_t wordEnd = command.find_first_of(" \t", firstWord);
  const bool assignment = firstWord != std::string::npos &&
                          command.substr(firstWord, wordEnd - firstWord).find('=') != std::string::npos;
  return syntax || assignment || firstWord == std::string::npos ? command : "exec " + command;
}

// The three pipes of a child (standard input, output, error), both ends close-on-exec.
struct Pipes {
  int in[2], out[2], err[2];
  void closeAll() const {
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
  }
};

Result<Pipes> openPipes() {
  ::signal(SIGPIPE, SIG_IGN);  // a child that exits while we write must not kill us
  Pipes pipes;
  int* ends[] = {pipes.in, pipes.out, pipes.err};
  for (int k = 0; k < 3; ++k) {
    if (::pipe2(ends[k], O_CLOEXEC) == 0) continue;
    std::string why = std::strerror(errno);
    for (int j = 0; j < k; ++j) ::close(ends[j][0]), ::close(ends[j][1]);
    return fail("cannot create a pipe: " + why);
  }
  return pipes;
}

// The guardian: the direct child of tapecheck, a subreaper that forks the engine and keeps its
// whole tree. Everything here is async-signal-safe (no allocation): it also runs for start() in a
// program with threads.

// Writes the decimal digits of `value` at `out`; returns the end.
char* appendNumber(char* out, long value) {
  char digits[24];
  int count = 0;
  do digits[count++] = static_cast<char>('0' + value % 10), value /= 10;
  while (value > 0);
  while (count > 0) *out++ = digits[--count];
  return out;
}

// Calls `each(pid)` for every number in the text read from `fd` (numbers split by anything else).
template <class Each>
void forEachNumberIn(int fd, Each each) {
  char buffer[4096];
  long number = -1;
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t k = 0; k < n; ++k) {
      if (buffer[k] >= '0' && buffer[k] <= '9') number = (number < 0 ? 0 : number * 10) + (buffer[k] - '0');
      else if (number >= 0) each(static_cast<pid_t>(number)), number = -1;
    }
  }
  if (number >= 0) each(static_cast<pid_t>(number));
}

// The parent of process `pid`, from /proc/PID/stat (the field after the command's last ')'), or -1.
pid_t parentOf(pid_t pid) {
  char path[64] = "/proc/";
  char* end = appendNumber(path + 6, pid);
  std::memcpy(end, "/stat", 6);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char text[1024];
  ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0) return -1;
  text[n] = '\0';
  const char* close = std::strrchr(text, ')');
  if (!close) return -1;
  const char* at = close + 1;
  while (*at == ' ') ++at;
  while (*at && *at != ' ') ++at;  // the state
  while (*at == ' ') ++at;
  long parent = 0;
  if (*at < '0' || *at > '9') return -1;
  while (*at >= '0' && *at <= '9') parent = parent * 10 + (*at++ - '0');
  return static_cast<pid_t>(parent);
}

// An entry of getdents64 (linux_dirent64).
struct DirectoryEntry {
  std::uint64_t inode;
  std::int64_t offset;
  unsigned short length;
  unsigned char type;
  char name[1];
};

// Kills (SIGKILL) every child of this process: from /proc/self/task/PID/children where the kernel
// has it, else from every /proc/PID/stat. The guardian is a subreaper, so every orphan of the
// engine's tree is its child, whatever session or group it moved to.
void killChildrenOf(pid_t self) {
  char path[64] = "/proc/self/task/";
  char* end = appendNumber(path + 16, self);
  std::memcpy(end, "/children", 10);
  if (int fd = ::open(path, O_RDONLY | O_CLOEXEC); fd >= 0) {
    forEachNumberIn(fd, [](pid_t child) { ::kill(child, SIGKILL); });
    ::close(fd);
    return;
  }
  int proc = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc < 0) return;
  alignas(8) char entries[8192];
  for (;;) {
    long n = ::syscall(SYS_getdents64, proc, entries, sizeof entries);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const DirectoryEntry*>(entries + at);
      at += entry->length;
      long pid = 0;
      const char* c = entry->name;
      if (*c < '1' || *c > '9') continue;
      while (*c >= '0' && *c <= '9') pid = pid * 10 + (*c++ - '0');
      if (*c == '\0' && parentOf(static_cast<pid_t>(pid)) == self) ::kill(static_cast<pid_t>(pid), SIGKILL);
    }
  }
  ::close(proc);
}

// Ends the engine's whole tree: its process group, then every process adopted by the guardian,
// until the guardian has no child left. Returns the engine's wait status.
int endTree(pid_t self, pid_t engine) {
  ::kill(-engine, SIGKILL);  // the engine is not reaped yet: the group id is still its own
  int engineStatus = -1;
  for (;;) {
    killChildrenOf(self);
    for (;;) {
      int status = 0;
      pid_t done = ::waitpid(-1, &status, WNOHANG);
      if (done > 0) {
        if (done == engine) engineStatus = status;
        continue;
      }
      if (done < 0 && errno == EINTR) continue;
      if (done < 0) return engineStatus;  // ECHILD: no child left
      break;  // children left, not yet dead
    }
    timespec pause{0, 500'000};
    ::nanosleep(&pause, nullptr);
  }
}

// Whether the engine has ended; reaps the other children that have (orphans it adopted).
bool engineEnded(pid_t engine) {
  for (;;) {
    siginfo_t info{};
    if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) return false;
    if (info.si_pid == engine) return true;  // left unreaped: its group id stays its own
    ::waitpid(info.si_pid, nullptr, 0);
  }
}

// Ends the way the engine ended (`status` from waitpid): its exit status, or its signal (without a
// core dump), so tapecheck reports the engine's end truthfully.
[[noreturn]] void endLike(int status) {
  if (status == -1) ::_exit(127);
  if (WIFEXITED(status)) ::_exit(WEXITSTATUS(status));
  const int signal = WTERMSIG(status);
  rlimit none{0, 0};
  ::setrlimit(RLIMIT_CORE, &none);
  ::prctl(PR_SET_DUMPABLE, 0);  // no core dump of the guardian, whatever the core pattern
  dieOfSignal(signal);
}

// The guardian's life: forks the engine (which runs `inChild` with the pipes), lets go of every
// descriptor it has, then waits for the engine to end or for tapecheck to ask for the end (SIGTERM,
// also its parent-death signal); then it ends the engine's tree and ends like the engine.
[[noreturn]] void guard(const Pipes& pipes, const std::function<void(const int* in, const int* out, const int* err)>& inChild,
                        bool execs, pid_t parent, const sigset_t& mask) {
  ::setpgid(0, 0);
  ::signal(SIGCHLD, SIG_DFL);  // never SIG_IGN here: children must be waited for
  sigset_t waited;
  ::sigemptyset(&waited);
  for (int signal : {SIGCHLD, SIGTERM, SIGINT, SIGHUP}) ::sigaddset(&waited, signal);
  ::sigprocmask(SIG_BLOCK, &waited, nullptr);  // taken by sigwaitinfo, never by a handler
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  if (::getppid() != parent) ::_exit(127);  // tapecheck died before prctl took effect
  const pid_t self = ::getpid();
  // An engine that only execs shares the guardian's memory until it does (vfork: no page tables
  // copied, which costs in proportion to tapecheck's memory); what it calls before exec are system
  // calls on its own process (its group, its signals, its descriptors), as in posix_spawn.
  const pid_t engine = execs ? ::vfork() : ::fork();
  if (engine < 0) ::_exit(127);
  if (engine == 0) {
    becomeEngine(self, mask);
    inChild(pipes.in, pipes.out, pipes.err);
    ::_exit(127);
  }
  ::setpgid(engine, engine);  // also here, so the group exists whichever side runs first
  // Nothing of tapecheck's held open here: the engine's input ends when tapecheck closes it, and a
  // pipe on tapecheck's output ends when tapecheck exits.
  if (::syscall(SYS_close_range, 0u, ~0u, 0u) != 0)
    for (int fd = 0; fd < 65536; ++fd) ::close(fd);
  if (int null = ::open("/dev/null", O_RDWR); null == 0) ::dup2(0, 1), ::dup2(0, 2);
  for (;;) {
    siginfo_t info{};
    int signal = ::sigwaitinfo(&waited, &info);
    if (signal == SIGCHLD) {
      if (engineEnded(engine)) break;
    } else if (signal > 0) {
      break;  // asked to end, or tapecheck died
    }
  }
  endLike(endTree(self, engine));
}

}  // namespace

Result<ChildProcess> ChildProcess::start(const std::string& command) {
  const std::string line = shellLine(command);  // built before fork: the engine only execs
  return launch([&](const int* in, const int* out, const int* err) { execChild(line.c_str(), in[0], out[1], err[1]); },
                true);
}

Result<ChildProcess> ChildProcess::fork(const std::function<int(int in, std::FILE* out)>& body) {
  std::fflush(nullptr);  // what is buffered would be written twice, by both processes
  return launch([&](const int* in, const int* out, const int* err) {
    forgetAll();  // tapecheck's guardians and files are not this copy's to end
    // The protocol has its own pipe: what the engine prints goes to the error tail.
    if (::dup2(err[1], 1) < 0 || ::dup2(err[1], 2) < 0) ::_exit(127);
    for (int fd : {in[1], out[0], err[0], err[1]}) ::close(fd);  // no exec closes them here
    std::FILE* protocol = ::fdopen(out[1], "w");
    if (!protocol) ::_exit(127);
    int status = body(in[0], protocol);
    std::fflush(nullptr);
    ::_exit(status);
  }, false);
}

Result<ChildProcess> ChildProcess::launch(const std::function<void(const int* in, const int* out, const int* err)>& inChild,
                                          bool execs) {
  installInterruptHandlers();
  auto pipes = openPipes();
  if (!pipes) return std::unexpected(pipes.error());
  // Blocked from before the fork until the guardian is registered: a handler then always knows it.
  InterruptsBlocked blocked;
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    pipes->closeAll();
    return fail(fmt::format("cannot start a process: {}", std::strerror(errno)));
  }
  if (pid == 0) guard(*pipes, inChild, execs, parent, blocked.previous());
  ::setpgid(pid, pid);  // also here, so the group exists whichever side runs first
  watchChild(pid);
  ::close(pipes->in[0]), ::close(pipes->out[1]), ::close(pipes->err[1]);
  ChildProcess child;
  child.pid_ = pid, child.in_ = pipes->in[1], child.out_ = pipes->out[0], child.err_ = pipes->err[0];
  for (int fd : {child.in_, child.out_, child.err_}) setNonBlocking(fd);
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept { *this = std::move(other); }

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this == &other) return *this;
  terminate();
  closeAll();
  pid_ = std::exchange(other.pid_, -1);
  in_ = std::exchange(other.in_, -1), out_ = std::exchange(other.out_, -1), err_ = std::exchange(other.err_, -1);
  pendingInput_ = std::move(other.pendingInput_), output_ = std::move(other.output_);
  errorTail_ = std::move(other.errorTail_);
  exited_ = other.exited_, status_ = other.status_;
  return *this;
}

ChildProcess::~ChildProcess() {
  terminate();
  closeAll();
}

void ChildProcess::send(std::string_view bytes) {
  if (in_ >= 0) pendingInput_.append(bytes);
}

void ChildProcess::flushInput() {
  while (in_ >= 0 && !pendingInput_.empty()) {
    ssize_t n = ::write(in_, pendingInput_.data(), pendingInput_.size());
    if (n > 0) {
      pendingInput_.erase(0, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      if (n < 0 && errno != EAGAIN) pendingInput_.clear(), closeFd(in_);  // the child closed it
      return;
    }
  }
}

// Writes pending input, reads output (no more than a line of `maxLine` bytes needs) and standard
// error, until some output has been read, the output ends or the deadline passes. Returns false at
// end of output.
bool ChildProcess::pump(std::chrono::steady_clock::time_point deadline, std::size_t maxLine) {
  char buffer[65536];
  const std::size_t room = std::min(sizeof buffer, output_.room(maxLine));
  for (;;) {
    if (out_ < 0) return false;
    if (room == 0) return true;  // a line over the limit: readLine says so
    pollfd fds[3];
    nfds_t count = 0;
    fds[count++] = {out_, POLLIN, 0};
    if (err_ >= 0) fds[count++] = {err_, POLLIN, 0};
    if (in_ >= 0 && !pendingInput_.empty()) fds[count++] = {in_, POLLOUT, 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return true;
    int ready = ::poll(fds, count, static_cast<int>(std::min<long long>(left.count(), 1 << 30)));
    if (ready < 0 && errno != EINTR) return true;
    if (ready <= 0) continue;
    bool read = false;
    for (nfds_t k = 0; k < count; ++k) {
      if (!fds[k].revents) continue;
      if (fds[k].fd == in_) {
        ssize_t n = ::write(in_, pendingInput_.data(), pendingInput_.size());
        if (n > 0) pendingInput_.erase(0, static_cast<std::size_t>(n));
        else if (n < 0 && errno != EAGAIN && errno != EINTR) pendingInput_.clear(), closeFd(in_);  // the child closed it
      } else if (fds[k].fd == err_) {
        drainError();
      } else if (fds[k].fd == out_) {
        ssize_t n = ::read(out_, buffer, room);
        if (n > 0) output_.append(buffer, static_cast<std::size_t>(n), maxLine), read = true;
        else if (n == 0 || (errno != EAGAIN && errno != EINTR)) closeFd(out_);
      }
    }
    if (read) return true;
  }
}

void ChildProcess::drainError() {
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(err_, buffer, sizeof buffer);
    if (n > 0) {
      errorTail_.append(buffer, static_cast<std::size_t>(n));
      if (errorTail_.size() > kErrorTailBytes) errorTail_.erase(0, errorTail_.size() - kErrorTailBytes);
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EINTR)) closeFd(err_);
    return;
  }
}

LineOutcome ChildProcess::readLine(std::chrono::milliseconds timeout, std::size_t maxLine) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    LineOutcome outcome{LineOutcome::Kind::line, {}};
    switch (output_.take(outcome.line, maxLine)) {
      case LineBuffer::Next::line: return outcome;
      case LineBuffer::Next::tooLong: return {LineOutcome::Kind::tooLong, {}};  // the rest is never read
      case LineBuffer::Next::none: break;
    }
    if (std::chrono::steady_clock::now() >= deadline) return {LineOutcome::Kind::timeout, {}};
    if (!pump(deadline, maxLine)) {
      // End of output: the child is exiting. Wait for it briefly; a child that closed its output
      // but keeps running is killed, so an exit is always reported.
      if (!waitFor(std::chrono::milliseconds(1000))) terminate();
      if (err_ >= 0) drainError();
      return {LineOutcome::Kind::exited, {}};
    }
  }
}

void ChildProcess::stop(std::chrono::milliseconds grace) {
  closeFd(in_);
  if (!waitFor(grace)) terminate();
  closeAll();
}

bool ChildProcess::reap(bool block) {
  if (exited_) return true;
  if (pid_ <= 0) return false;
  InterruptsBlocked blocked;  // reaped and forgotten at once: a handler never signals a reused pid
  int status = 0;
  pid_t done;
  do done = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  while (done < 0 && errno == EINTR);
  if (done != pid_) return false;
  forgetChild(pid_);
  exited_ = true, status_ = status;
  pid_ = -pid_;  // remembered for messages, never signalled again
  return true;
}

bool ChildProcess::waitFor(std::chrono::milliseconds timeout) {
  if (reap(false)) return true;
  if (pid_ <= 0) return false;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const int exits = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));  // readable once the process has ended
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    if (exits >= 0) {
      pollfd ended{exits, POLLIN, 0};
      ::poll(&ended, 1, static_cast<int>(std::min<long long>(left.count(), 1 << 30)));
    } else {
      std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(2)));
    }
    if (reap(false)) break;
  }
  if (exits >= 0) ::close(exits);
  return reap(false);
}

void ChildProcess::terminate() {
  if (pid_ <= 0 || exited_) return;
  ::kill(pid_, SIGTERM);  // the guardian ends the engine's tree, then itself
  if (waitFor(std::chrono::milliseconds(5000))) return;
  ::kill(pid_, SIGKILL);  // a guardian that does not end (never seen): the engine dies with it
  reap(true);
}

void ChildProcess::closeAll() {
  closeFd(in_), closeFd(out_), closeFd(err_);
}

std::string endDescription(bool bySignal, int number) {
  return bySignal ? fmt::format("signal {} ({})", number, ::strsignal(number)) : fmt::format("status {}", number);
}

std::string ChildProcess::exitDescription() const {
  if (!exited_) return "still running";
  if (WIFEXITED(status_)) return endDescription(false, WEXITSTATUS(status_));
  if (WIFSIGNALED(status_)) return endDescription(true, WTERMSIG(status_));
  return "an unknown status";
}

std::vector<std::string> ChildProcess::lastErrorLines(std::size_t count) {
  if (err_ >= 0) drainError();
  std::vector<std::string> lines;
  std::size_t end = errorTail_.size();
  while (lines.size() < count && end > 0) {
    const std::size_t newline = errorTail_.rfind('\n', end - 1);
    const std::size_t begin = newline == std::string::npos ? 0 : newline + 1;
    std::string_view line = std::string_view(errorTail_).substr(begin, end - begin);
    if (const std::size_t last = line.find_last_not_of(" \t\r"); last != std::string_view::npos)
      lines.emplace_back(line.substr(0, last + 1));
    if (newline == std::string::npos) break;
    end = newline;
  }
  std::reverse(lines.begin(), lines.end());
  return lines;
}

}  // namespace tc::process
