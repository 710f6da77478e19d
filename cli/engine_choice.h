#pragma once
// The engine the engine-scoped properties check, as run, check, replay and show choose it: a
// built-in or registered engine by name (--engine), or a command that speaks the engine protocol
// (--engine-cmd, docs/engine-protocol.md), started once and shared by every carrier.
#include <cassert>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "adapters/process/process_engine.h"
#include "cli/named_engine.h"
#include "core/carriers/carrier.h"
#include "core/support/result.h"
#include "properties/engines/engine.h"

namespace tc::cli {

//! What the command line said: an engine by name, or a command, and how to run it.
struct EngineChoice {
  std::string name;     //!< --engine; empty: the catalog's default, unless a command is given
  std::string command;  //!< --engine-cmd
  double timeoutSeconds = 10;    //!< --engine-timeout: per answer of a process (per case)
  std::optional<bool> isolate;   //!< --isolate/--no-isolate; default: yes for an engine not built in
  std::string logFile;           //!< --engine-log: where the exchange with an engine process is recorded
};

//! The chosen engine on every carrier: a built-in or registered engine, called in this process or,
//! isolated, served by a forked copy of it (docs/semantics.md §3.8), so that a crash or a hang is a
//! verdict; or an engine command. Owns the process when there is one.
class EngineSource {
 public:
  //! Starts the command or the isolated copy and reads its hello (an engine that does not start,
  //! or whose hello breaks the protocol, is an error naming it), or picks the engine in-process.
  static Result<std::unique_ptr<EngineSource>> open(const EngineChoice& choice, const EngineCatalog& catalog);

  //! The engine on carrier T; the profile's carriers (hello()) must include T.
  template <class T>
  const Engine<T>& engine() const {
    if (process_) return *std::get<std::unique_ptr<process::ProcessEngine<T>>>(engines_);
    if (!registered_) return builtinEngine<T>(name_);
    const Engine<T>* engine = registered_->engines.get<T>();
    assert(engine && "callers keep to the carriers of the engine's profile");
    return *engine;
  }
  //! What the engine announces: a process's hello, a registered engine's profile and policy;
  //! nullptr for a built-in engine in this process (the `spec` profile, bits).
  const process::Hello* hello() const;
  //! False for a carrier a registered engine has no Engine<T> for (its profile may claim more).
  bool runsOn(std::string_view carrier) const;
  //! True for an engine that is not built in: only engine-scoped properties concern it.
  bool external() const { return external_; }
  //! The name saved cases record: "compiled", "minigrad", an engine command's profile name.
  const std::string& name() const { return name_; }
  //! The command of an engine in another program; empty otherwise.
  const std::string& command() const { return command_; }
  //! How the command line names it again: "--engine compiled", "--engine minigrad --no-isolate",
  //! "--engine-cmd 'python3 e.py'".
  std::string flags() const;
  //! For headers: "compiled", "minigrad (isolated)", "'python3 e.py' (torch)".
  std::string description() const;

 private:
  void startIsolated(process::Launcher launch, process::ProcessSettings settings);
  void startCommand(process::ProcessSettings settings);

  std::string name_, command_;
  bool external_ = false, isolated_ = false;
  double timeoutSeconds_ = 10;
  const NamedEngine* registered_ = nullptr;
  std::optional<process::Hello> registeredHello_;
  std::unique_ptr<process::EngineProcess> process_;
  std::tuple<std::unique_ptr<process::ProcessEngine<Rational>>, std::unique_ptr<process::ProcessEngine<RationalNoEq>>,
             std::unique_ptr<process::ProcessEngine<ModP>>, std::unique_ptr<process::ProcessEngine<double>>,
             std::unique_ptr<process::ProcessEngine<float>>, std::unique_ptr<process::ProcessEngine<Interval>>>
      engines_;
};

//! Answers the engine protocol from `in` on `out` (docs/engine-protocol.md) with `registered`, or
//! when it is nullptr with the built-in engine `builtinName`, each request within `limits`; returns
//! serve()'s status.
int serveEngine(const std::string& builtinName, const NamedEngine* registered, int in, std::FILE* out,
                const process::ServeLimits& limits = {});

//! The program a command line runs in: its name in the command lines it prints (replay, rerun),
//! and the engines it knows.
struct Program {
  std::string name = "tapecheck";
  EngineCatalog engines;
};

//! A command quoted for a POSIX shell, so a printed command line can be pasted back.
std::string shellQuote(const std::string& text);
//! `text` as one word of a printed command line: as it is when no shell would change it (letters,
//! digits and _./:=@%+,-), else shellQuote'd.
std::string shellWord(const std::string& text);

}  // namespace tc::cli
