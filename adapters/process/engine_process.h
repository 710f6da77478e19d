#pragma once
// The carrier-independent half of the engine protocol (docs/engine-protocol.md): an engine
// command run as a child, its hello, and requests exchanged for answers in order, with crashes,
// exits and timeouts turned into faults of the request they hit and the engine restarted.
#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <functional>
#include <map>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "adapters/process/child_process.h"
#include "properties/compare.h"
#include "properties/engines/engine.h"
#include "properties/engines/profile.h"

namespace tc::process {

//! The protocol version this tapecheck speaks.
inline constexpr int kProtocolVersion = 1;

//! An engine's output that breaks the protocol, or an engine that cannot be started: an input
//! error (exit status 2), its message naming the command and the offending line.
struct ProtocolError : EngineOutputError {
  using EngineOutputError::EngineOutputError;
};

//! The least time an engine is given to say hello.
inline constexpr std::chrono::milliseconds kHelloTimeout{30000};

//! The least time an answer is awaited once an engine has hung (EngineProcess::answerTimeout).
inline constexpr std::chrono::milliseconds kLeastShortTimeout{500};
//! Once an engine has hung, an answer is awaited this many times its slowest answer so far.
inline constexpr int kShortTimeoutFactor = 20;
//! How long the answer to a cancel is awaited before the engine is killed and restarted instead.
inline constexpr std::chrono::milliseconds kCancelTimeout{2000};
//! How many of the last lines of an engine's standard error a crash's message quotes.
inline constexpr std::size_t kQuotedErrorLines = 20;

//! The longest hello an engine may write: the protocol's version and a profile, a few kilobytes.
inline constexpr std::size_t kMaxHelloLine = std::size_t{1} << 20;

//! How long to wait for each answer (the hello: at least kHelloTimeout), and the longest line an
//! engine may write (the hello: at most kMaxHelloLine).
struct ProcessSettings {
  std::chrono::milliseconds timeout{10000};
  std::size_t maxLine = kMaxLine;
  //! Where the exchange is recorded (--engine-log), or nullptr: each line sent as "> LINE", each
  //! line read as "< LINE", and starts and faults as "# ..."; the engine's input is the "> " lines.
  std::shared_ptr<std::FILE> log;
};

//! What an engine announces first: its profile and, if it names one, its policy.
struct Hello {
  EngineProfile profile;
  std::optional<props::Policy> policy;
  //! It announced `"cancel": true`: a request it does not answer in time is cancelled
  //! (`{"cancel": ID}`, answered with one line for that id), and the engine is not restarted.
  bool cancels = false;
};

//! An answer line as the engine wrote it, the line number in the engine's output (counted from
//! its start), and the id of the request it must answer. The typed side reads it (decodeAnswer).
struct Answer {
  std::string text;
  std::size_t line = 0, id = 0;
};

//! Why a request got no answer: "engine crashed: signal 11 (Segmentation fault)", "no answer in 10 s".
struct Fault {
  std::string message;
};

//! Starts an engine's process (ChildProcess::start or ChildProcess::fork).
using Launcher = std::function<Result<ChildProcess>()>;

//! An engine command, or a function of this program in a forked copy (an engine isolated from
//! tapecheck), started on first use and restarted after a fault.
class EngineProcess {
 public:
  //! The engine `/bin/sh -c command` starts.
  EngineProcess(std::string command, ProcessSettings settings = {});
  //! The engine `launch` starts; `label` names it in messages.
  EngineProcess(std::string label, Launcher launch, ProcessSettings settings = {});
  ~EngineProcess();
  EngineProcess(const EngineProcess&) = delete;
  EngineProcess& operator=(const EngineProcess&) = delete;

  //! The engine's hello, starting it if needed. Throws ProtocolError.
  const Hello& hello();
  //! Queues request bodies (JSON objects' text, without their "id") and writes what the pipe takes
  //! at once, so the engine works while the caller does; returns a ticket for each.
  std::vector<std::size_t> send(const std::vector<std::string>& bodies);
  //! The answer line to a ticket, or the fault that stopped it, reading the engine's output as far
  //! as needed (answers to earlier tickets are kept until received). After a fault the engine is
  //! restarted and the requests still pending are sent again. Throws ProtocolError on a line too
  //! long, or on a restart that fails.
  std::variant<Answer, Fault> receive(std::size_t ticket);
  //! Drops a ticket: its answer is read and discarded when it comes (an engine that cancels is asked
  //! to cancel it, so that it need not run it).
  void forget(std::size_t ticket);
  //! send, then receive each, in order.
  std::vector<std::variant<Answer, Fault>> exchange(const std::vector<std::string>& bodies);
  //! "engine 'CMD', output line N: " — the start of a protocol error's message.
  std::string where(std::size_t line) const;
  //! The command, or the label of a launched engine.
  const std::string& command() const { return command_; }
  //! How many times the engine was started.
  std::size_t starts() const { return starts_; }
  //! How long the answer to a request of `requestBytes` is awaited: the settings' timeout until the
  //! engine first hangs; after that, for the rest of the session, max(kLeastShortTimeout,
  //! kShortTimeoutFactor × its slowest answer so far to a request no larger, within a factor of two),
  //! at most the settings' timeout. An engine that hangs on one op then costs the full timeout once,
  //! and each case that hangs again (while shrinking, and in later rows) far less: shrinking's cases
  //! are small, and are measured against the answers to small cases.
  std::chrono::milliseconds answerTimeout(std::size_t requestBytes = SIZE_MAX) const;
  //! The longest wait for an answer that came, since the engine was first started.
  std::chrono::milliseconds slowestAnswer() const { return slowestAnswer(SIZE_MAX); }
  //! The longest wait for an answer to a request of less than twice `requestBytes`.
  std::chrono::milliseconds slowestAnswer(std::size_t requestBytes) const;
  //! How many answers were not awaited longer, and how many of those waited the settings' whole timeout.
  std::size_t timeouts() const { return timeouts_; }
  std::size_t fullTimeouts() const { return fullTimeouts_; }
  //! The fault of a request the engine answered `"crashed"` (the worker that ran it ended as
  //! `ending` says, and the engine runs on): worded as the crash of an engine's process.
  Fault crashed(const std::string& ending);

 private:
  // A request sent (or to send again after a restart), by ticket.
  struct Pending {
    std::size_t ticket;
    std::string body;
    std::size_t wireId;
    bool forgotten;
  };

  void start();
  void write(Pending& request);
  void logLine(std::string_view mark, std::string_view text) const;
  std::string faultMessage(const LineOutcome& outcome, std::chrono::milliseconds waited);
  // The last lines of the engine's standard error, as a suffix for messages.
  std::string stderrSuffix();
  // Cancels the request `wireId` the engine hangs on; false when the engine cannot (restart it).
  bool cancel(std::size_t wireId);
  // Writes `{"cancel": wireId}` (to an engine whose hello said "cancel": true).
  void sendCancel(std::size_t wireId);
  // Ends the engine after a fault; it starts again for the requests still pending, the forgotten dropped.
  void restart();
  [[noreturn]] void protocolError(std::size_t line, const std::string& why) const;

  std::string command_;
  Launcher launch_;
  ProcessSettings settings_;
  std::optional<ChildProcess> child_;
  std::optional<Hello> hello_;
  std::deque<Pending> pending_;
  std::map<std::size_t, std::variant<Answer, Fault>> done_;
  std::size_t nextId_ = 1, nextTicket_ = 1, linesRead_ = 0, starts_ = 0, timeouts_ = 0, fullTimeouts_ = 0;
  bool hung_ = false;                            // some answer timed out
  // The longest wait for an answer that came, by the size of its request: [k] for requests of
  // std::bit_width(bytes) == k.
  std::array<std::chrono::milliseconds, 65> slowestAnswers_{};
};

//! Reads a hello object; errors say which key is wrong and why.
Result<Hello> helloFromJson(const nlohmann::json& hello);
//! Reads an engine's first line (at most kMaxHelloLine bytes) as its hello; errors are a protocol
//! error's reason.
Result<Hello> helloFromLine(std::string_view line);

}  // namespace tc::process
