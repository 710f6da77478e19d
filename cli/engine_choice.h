#pragma once
// The engine the engine-scoped properties check, as run, check and replay choose it: a built-in
// engine by name (--engine), or a command that speaks the engine protocol (--engine-cmd,
// docs/engine-protocol.md), started once and shared by every carrier.
#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "adapters/process/process_engine.h"
#include "core/carriers/carrier.h"
#include "core/support/result.h"
#include "properties/engine.h"

namespace tc::cli {

//! What the command line said: a built-in name, or a command and how long to wait for it.
struct EngineChoice {
  std::string name;     //!< --engine; empty: "compiled" unless a command is given
  std::string command;  //!< --engine-cmd
  double timeoutSeconds = 10;
};

//! The chosen engine on every carrier; owns the engine process when there is one.
class EngineSource {
 public:
  //! Starts the command and reads its hello (an engine that does not start, or whose hello breaks
  //! the protocol, is an error naming it), or picks the built-in engine.
  static Result<std::unique_ptr<EngineSource>> open(const EngineChoice& choice);

  template <class T>
  const Engine<T>& engine() const {
    if (!process_) return builtinEngine<T>(builtinName_);
    return *std::get<std::unique_ptr<process::ProcessEngine<T>>>(engines_);
  }
  //! The engine's hello when it is a process.
  const process::Hello* hello() const { return process_ ? &process_->hello() : nullptr; }
  //! True for an engine in another process: only engine-scoped properties concern it.
  bool external() const { return process_ != nullptr; }
  //! The command of an engine in another process; empty for a built-in one.
  const std::string& command() const { return command_; }
  //! How the command line names it again: "--engine compiled" or "--engine-cmd 'python3 e.py'".
  std::string flags() const;
  //! For headers: "compiled", or "'python3 e.py' (torch)".
  std::string description() const;

 private:
  std::string builtinName_, command_;
  double timeoutSeconds_ = 10;
  std::unique_ptr<process::EngineProcess> process_;
  std::tuple<std::unique_ptr<process::ProcessEngine<Rational>>, std::unique_ptr<process::ProcessEngine<RationalNoEq>>,
             std::unique_ptr<process::ProcessEngine<ModP>>, std::unique_ptr<process::ProcessEngine<double>>,
             std::unique_ptr<process::ProcessEngine<float>>>
      engines_;
};

//! A command quoted for a POSIX shell, so a printed command line can be pasted back.
std::string shellQuote(const std::string& text);

}  // namespace tc::cli
