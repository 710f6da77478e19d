#pragma once
// tapecheck's command line as a library (the CMake target tapecheck::main): a program that
// registers its own engines gets every command — run, check, replay, show, grad, serve — with
// every option (reports, shards, saved failures, coverage, progress):
//
//   int main(int argc, char** argv) {
//     static minigrad::Engine<tc::Rational> onRational;
//     static minigrad::Engine<double> onDouble;
//     return tc::cli::main(argc, argv, {tc::cli::namedEngine("minigrad", onRational, onDouble)});
//   }
//
// `--engine NAME` picks a registered engine (the first is the default); its counterexamples are
// saved with its name, and `PROGRAM replay FILE` replays them on it. A registered engine runs
// isolated unless --no-isolate: a forked copy of the program serves it (docs/engine-protocol.md),
// so an exception, a crash or a hang in it is a failing case, shrunk like any other.
#include <functional>
#include <string>
#include <vector>

#include "cli/named_engine.h"

namespace CLI {
class App;
}

namespace tc::cli {

//! A command a program adds to the command line: `add` declares its options on the subcommand
//! and returns what runs it, giving the exit status. (tapecheck's own bench and mutants.)
struct ExtraCommand {
  std::string name, description;
  std::function<std::function<int()>(CLI::App& command)> add;
};

//! Parses the arguments, runs the command and returns the exit status: 0 success, 1 a property
//! failed, 2 a usage or input error (one line on stderr). `engines` are the program's own, with
//! unique names that are not built-in engines' (reference, tape, compiled).
int main(int argc, char** argv, std::vector<NamedEngine> engines = {}, std::vector<ExtraCommand> extra = {});

}  // namespace tc::cli

//! Defines main() as tc::cli::main with these engines:
//! `TAPECHECK_MAIN(tc::cli::namedEngine("mine", mineOnRational, mineOnDouble))`.
#define TAPECHECK_MAIN(...) \
  int main(int argc, char** argv) { return ::tc::cli::main(argc, argv, {__VA_ARGS__}); }
