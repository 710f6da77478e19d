#pragma once
// What tapecheck does when it is interrupted (SIGINT, SIGTERM, SIGHUP): it ends every child process
// registered here (each a guardian of an engine's whole tree, see child_process.h, or a child run of
// `tapecheck mutants`) and waits for them, removes every temporary file registered here (a report
// being written), and then dies of the same signal, so its exit status is the signal's
// (docs/threat-model.md §5). The registries are small fixed tables, changed only with the signals
// blocked (InterruptsBlocked), so the handler never signals a process that was already reaped.
#include <signal.h>
#include <sys/types.h>

namespace tc::process {

//! Installs the handlers for SIGINT, SIGTERM and SIGHUP, each unless the signal is ignored (a
//! background job's SIGINT) or already has a handler (a program that embeds tapecheck's code).
//! Idempotent.
void installInterruptHandlers();

//! Registers a child process the handlers end (SIGTERM) and wait for (at most 5 s in all); false
//! when the table (64 entries) is full, then the child relies on its parent-death signal alone.
//! Call with the signals blocked, between fork and the first chance of a signal.
bool watchChild(pid_t pid);
//! Forgets a child: call with the signals blocked, together with reaping it.
void forgetChild(pid_t pid);

//! Registers a file the handlers remove (a temporary file being written); returns its slot, or -1
//! when the table is full or the path too long. Call with the signals blocked, with the creation.
int watchTemporary(const char* path);
//! Forgets a temporary file (renamed or removed): its slot, or -1 (nothing).
void forgetTemporary(int slot);

//! Empties both tables: for a forked copy that runs on without exec (its parent's children and
//! files are not its own).
void forgetAll();

//! Ends this process by `signal`: its default action, unblocked, so the exit status is the signal's
//! (async-signal-safe; the handlers and an engine's guardian end this way).
[[noreturn]] void dieOfSignal(int signal);

//! Blocks SIGINT, SIGTERM and SIGHUP for its lifetime (what was blocked before is restored).
class InterruptsBlocked {
 public:
  InterruptsBlocked();
  ~InterruptsBlocked();
  InterruptsBlocked(const InterruptsBlocked&) = delete;
  InterruptsBlocked& operator=(const InterruptsBlocked&) = delete;
  //! The signal mask from before: what a child should start with.
  const sigset_t& previous() const { return previous_; }

 private:
  sigset_t previous_;
};

}  // namespace tc::process
