#include "adapters/process/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>
#include <utility>

#include <fmt/format.h>

namespace tc::process {
namespace {

constexpr std::size_t kErrorTailBytes = 4096;

void closeFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void setNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// In the child, first thing: its own process group, killed with tapecheck.
void becomeChild(pid_t parent) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
  ::signal(SIGPIPE, SIG_DFL);
}

// In the child between fork and exec: only async-signal-safe calls.
[[noreturn]] void execChild(const char* command, int in, int out, int err, pid_t parent) {
  becomeChild(parent);  // SIGPIPE back to its default: an ignored disposition would survive exec
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

}  // namespace

Result<ChildProcess> ChildProcess::start(const std::string& command) {
  const std::string line = shellLine(command);  // built before fork: the child only execs
  return launch([&](const int* in, const int* out, const int* err, pid_t parent) {
    execChild(line.c_str(), in[0], out[1], err[1], parent);
  });
}

Result<ChildProcess> ChildProcess::fork(const std::function<int(int in, std::FILE* out)>& body) {
  std::fflush(nullptr);  // what is buffered would be written twice, by both processes
  return launch([&](const int* in, const int* out, const int* err, pid_t parent) {
    becomeChild(parent);
    // The protocol has its own pipe: what the engine prints goes to the error tail.
    if (::dup2(err[1], 1) < 0 || ::dup2(err[1], 2) < 0) ::_exit(127);
    for (int fd : {in[1], out[0], err[0], err[1]}) ::close(fd);  // no exec closes them here
    std::FILE* protocol = ::fdopen(out[1], "w");
    if (!protocol) ::_exit(127);
    int status = body(in[0], protocol);
    std::fflush(nullptr);
    ::_exit(status);
  });
}

Result<ChildProcess> ChildProcess::launch(
    const std::function<void(const int* in, const int* out, const int* err, pid_t parent)>& inChild) {
  auto pipes = openPipes();
  if (!pipes) return std::unexpected(pipes.error());
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    pipes->closeAll();
    return fail(fmt::format("cannot start a process: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    inChild(pipes->in, pipes->out, pipes->err, parent);
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so the group exists whichever side runs first
  ::close(pipes->in[0]), ::close(pipes->out[1]), ::close(pipes->err[1]);
  ChildProcess child;
  child.pid_ = pid, child.in_ = pipes->in[1], child.out_ = pipes->out[0], child.err_ = pipes->err[0];
  for (int fd : {child.in_, child.out_, child.err_}) setNonBlocking(fd);
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept { *this = std::move(other); }

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this == &other) return *this;
  if (pid_ > 0) killGroup(), reap(true);
  closeAll();
  pid_ = std::exchange(other.pid_, -1);
  in_ = std::exchange(other.in_, -1), out_ = std::exchange(other.out_, -1), err_ = std::exchange(other.err_, -1);
  pendingInput_ = std::move(other.pendingInput_), output_ = std::move(other.output_);
  errorTail_ = std::move(other.errorTail_);
  exited_ = other.exited_, status_ = other.status_;
  return *this;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) killGroup(), reap(true);
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

// Writes pending input, reads output and standard error, until a line is complete, the output
// ends or the deadline passes. Returns false at end of output.
bool ChildProcess::pump(std::chrono::steady_clock::time_point deadline) {
  char buffer[65536];
  while (output_.find('\n') == std::string::npos) {
    if (out_ < 0) return false;
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
    for (nfds_t k = 0; k < count; ++k) {
      if (!fds[k].revents) continue;
      if (fds[k].fd == in_) {
        ssize_t n = ::write(in_, pendingInput_.data(), pendingInput_.size());
        if (n > 0) pendingInput_.erase(0, static_cast<std::size_t>(n));
        else if (n < 0 && errno != EAGAIN && errno != EINTR) pendingInput_.clear(), closeFd(in_);  // the child closed it
      } else if (fds[k].fd == err_) {
        drainError();
      } else if (fds[k].fd == out_) {
        ssize_t n = ::read(out_, buffer, sizeof buffer);
        if (n > 0) output_.append(buffer, static_cast<std::size_t>(n));
        else if (n == 0 || (errno != EAGAIN && errno != EINTR)) closeFd(out_);
      }
    }
  }
  return true;
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
    if (auto end = output_.find('\n'); end != std::string::npos) {
      if (end > maxLine) return {LineOutcome::Kind::tooLong, {}};
      std::string line = output_.substr(0, end);
      output_.erase(0, end + 1);
      return {LineOutcome::Kind::line, std::move(line)};
    }
    if (output_.size() > maxLine) return {LineOutcome::Kind::tooLong, {}};
    if (std::chrono::steady_clock::now() >= deadline) return {LineOutcome::Kind::timeout, {}};
    if (!pump(deadline)) {
      // End of output: the child is exiting. Wait for it briefly; a child that closed its output
      // but keeps running is killed, so an exit is always reported.
      for (int waited = 0; !reap(false) && waited < 100; ++waited) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (!exited_) killGroup(), reap(true);
      if (err_ >= 0) drainError();
      return {LineOutcome::Kind::exited, {}};
    }
  }
}

void ChildProcess::stop(std::chrono::milliseconds grace) {
  closeFd(in_);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (pid_ > 0 && !reap(false) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (pid_ > 0) killGroup(), reap(true);
  closeAll();
}

bool ChildProcess::reap(bool block) {
  if (exited_) return true;
  if (pid_ <= 0) return false;
  int status = 0;
  pid_t done;
  do done = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  while (done < 0 && errno == EINTR);
  if (done != pid_) return false;
  exited_ = true, status_ = status;
  killGroup();  // whatever the command started goes with it
  pid_ = -pid_;  // remembered for messages, never signalled again
  return true;
}

void ChildProcess::killGroup() {
  if (pid_ > 0) ::kill(-pid_, SIGKILL);
  else if (pid_ < -1) ::kill(pid_, SIGKILL);  // the group of a reaped leader
}

void ChildProcess::closeAll() {
  closeFd(in_), closeFd(out_), closeFd(err_);
}

std::string ChildProcess::exitDescription() const {
  if (!exited_) return "still running";
  if (WIFEXITED(status_)) return fmt::format("status {}", WEXITSTATUS(status_));
  if (WIFSIGNALED(status_)) return fmt::format("signal {} ({})", WTERMSIG(status_), ::strsignal(WTERMSIG(status_)));
  return "an unknown status";
}

std::string ChildProcess::lastErrorLine() const {
  std::size_t end = errorTail_.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return {};
  std::size_t begin = errorTail_.rfind('\n', end);
  return errorTail_.substr(begin == std::string::npos ? 0 : begin + 1, end - (begin == std::string::npos ? 0 : begin + 1) + 1);
}

}  // namespace tc::process
