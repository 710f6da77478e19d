#pragma once
// The carrier-independent half of the engine protocol (docs/engine-protocol.md): an engine
// command run as a child, its hello, and requests exchanged for answers in order, with crashes,
// exits and timeouts turned into faults of the request they hit and the engine restarted.
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "adapters/process/child_process.h"
#include "properties/compare.h"
#include "properties/profile.h"

namespace tc::process {

//! The protocol version this tapecheck speaks.
inline constexpr int kProtocolVersion = 1;

//! An engine's output that breaks the protocol, or an engine that cannot be started: an input
//! error (exit status 2), its message naming the command and the offending line.
struct ProtocolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

//! How long to wait for each answer, and the longest line an engine may write.
struct ProcessSettings {
  std::chrono::milliseconds timeout{10000};
  std::size_t maxLine = std::size_t{256} << 20;
};

//! What an engine announces first: its profile and, if it names one, its policy.
struct Hello {
  EngineProfile profile;
  std::optional<props::Policy> policy;
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

//! An engine command, started on first use and restarted after a fault.
class EngineProcess {
 public:
  EngineProcess(std::string command, ProcessSettings settings = {});
  ~EngineProcess();
  EngineProcess(const EngineProcess&) = delete;
  EngineProcess& operator=(const EngineProcess&) = delete;

  //! The engine's hello, starting it if needed. Throws ProtocolError.
  const Hello& hello();
  //! Sends each request body (a JSON object's text, without its "id") and returns, in order, the
  //! answer line to each or the fault that stopped it. Throws ProtocolError on a line too long.
  std::vector<std::variant<Answer, Fault>> exchange(const std::vector<std::string>& bodies);
  //! "engine 'CMD', output line N: " — the start of a protocol error's message.
  std::string where(std::size_t line) const;
  const std::string& command() const { return command_; }
  //! How many times the engine was started.
  std::size_t starts() const { return starts_; }

 private:
  void start();
  std::string faultMessage(const LineOutcome& outcome);
  [[noreturn]] void protocolError(std::size_t line, const std::string& why) const;

  std::string command_;
  ProcessSettings settings_;
  std::optional<ChildProcess> child_;
  std::optional<Hello> hello_;
  std::size_t nextId_ = 1, linesRead_ = 0, starts_ = 0;
};

//! Reads a hello object; errors say which key is wrong and why.
Result<Hello> helloFromJson(const nlohmann::json& hello);

}  // namespace tc::process
