#include "adapters/process/interrupt.h"

#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>

namespace tc::process {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kChildSlots = 64;
constexpr int kTemporarySlots = 8;
constexpr long kWaitNanoseconds = 5'000'000'000L;  // for the children, in all

std::atomic<pid_t> children[kChildSlots];
struct TemporarySlot {
  std::atomic<bool> used{false};
  char path[PATH_MAX];
};
TemporarySlot temporaries[kTemporarySlots];

long long nowNanoseconds() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<long long>(now.tv_sec) * 1'000'000'000LL + now.tv_nsec;
}

// Only async-signal-safe calls. The other handled signals are blocked while it runs (sa_mask).
void onInterrupt(int signal) {
  for (auto& slot : children)
    if (pid_t pid = slot.load(); pid > 0) ::kill(pid, SIGTERM);
  const long long deadline = nowNanoseconds() + kWaitNanoseconds;
  for (;;) {
    bool waiting = false;
    for (auto& slot : children) {
      pid_t pid = slot.load();
      if (pid <= 0) continue;
      pid_t done = ::waitpid(pid, nullptr, WNOHANG);
      if (done == pid || (done < 0 && errno != EINTR)) slot.store(0);
      else waiting = true;
    }
    if (!waiting || nowNanoseconds() > deadline) break;
    timespec pause{0, 2'000'000};
    ::nanosleep(&pause, nullptr);
  }
  for (auto& slot : temporaries)
    if (slot.used.load()) ::unlink(slot.path);
  dieOfSignal(signal);
}

}  // namespace

void dieOfSignal(int signal) {
  ::signal(signal, SIG_DFL);
  sigset_t only;
  ::sigemptyset(&only);
  ::sigaddset(&only, signal);
  ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
  ::kill(::getpid(), signal);
  ::_exit(128 + signal);  // a signal whose default action does not end the process
}

void installInterruptHandlers() {
  for (int signal : kSignals) {
    struct sigaction current {};
    if (::sigaction(signal, nullptr, &current) != 0) continue;
    if (current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO)) continue;  // ignored, or someone's
    struct sigaction action {};
    action.sa_handler = onInterrupt;
    ::sigemptyset(&action.sa_mask);
    for (int other : kSignals) ::sigaddset(&action.sa_mask, other);
    action.sa_flags = SA_RESTART;
    ::sigaction(signal, &action, nullptr);
  }
}

bool watchChild(pid_t pid) {
  for (auto& slot : children) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pid)) return true;
  }
  return false;
}

void forgetChild(pid_t pid) {
  for (auto& slot : children) {
    pid_t expected = pid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

int watchTemporary(const char* path) {
  const std::size_t length = std::strlen(path);
  if (length >= PATH_MAX) return -1;
  for (int k = 0; k < kTemporarySlots; ++k) {
    if (temporaries[k].used.load()) continue;
    std::memcpy(temporaries[k].path, path, length + 1);
    temporaries[k].used.store(true);
    return k;
  }
  return -1;
}

void forgetTemporary(int slot) {
  if (slot >= 0 && slot < kTemporarySlots) temporaries[slot].used.store(false);
}

void forgetAll() {
  for (auto& slot : children) slot.store(0);
  for (auto& slot : temporaries) slot.used.store(false);
}

InterruptsBlocked::InterruptsBlocked() {
  sigset_t blocked;
  ::sigemptyset(&blocked);
  for (int signal : kSignals) ::sigaddset(&blocked, signal);
  ::sigprocmask(SIG_BLOCK, &blocked, &previous_);
}

InterruptsBlocked::~InterruptsBlocked() { ::sigprocmask(SIG_SETMASK, &previous_, nullptr); }

}  // namespace tc::process
