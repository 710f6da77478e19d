// tapecheck: property-based verification of reverse-mode autograd, from the command line.
#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include "core/support/text.h"
#include "properties/all.h"
#include "cli/bench.h"
#include "cli/case_commands.h"
#include "cli/exit_codes.h"
#include "cli/grad.h"
#include "cli/mutants.h"
#include "cli/run.h"
#include "adapters/process/engine_process.h"
#include "adapters/process/serve.h"
#include "core/carriers/dispatch.h"
#include "properties/engine.h"

namespace {

// CLI11 reads "-1" into an unsigned option as 2^64 - 1: a count or seed must be written unsigned.
const CLI::Validator kUnsigned(
    [](std::string& text) {
      return text.find_first_not_of("0123456789") == std::string::npos && !text.empty()
                 ? std::string()
                 : "must be a whole number, 0 or more, got " + text;
    },
    "UNSIGNED");

// The options `run` and `check` share: which properties, carriers and engine, the seed, and where
// counterexamples go.
void addPropertyChoices(CLI::App* command, std::optional<std::uint64_t>& seed, std::string& carrier,
                        std::string& property, std::string& engine, std::string& saveDir, const std::string& carrierHelp) {
  std::vector<std::string> carriers = tc::kCarrierNames;
  carriers.push_back("all");
  command->add_option("--seed", seed, "random seed (default: from the clock; printed)")->check(kUnsigned);
  command->add_option("--carrier", carrier, carrierHelp)->check(CLI::IsMember(carriers));
  std::string names;
  for (std::string_view name : tc::props::allPropertyNames()) names += (names.empty() ? "" : ", ") + std::string(name);
  command->add_option("--property", property, "one property by name, or all: " + names);
  command->add_option("--engine", engine, "the built-in engine the engine-scoped properties check")
      ->check(CLI::IsMember(tc::builtinEngineNames()));
  command->add_option("--save-failures", saveDir, "where shrunk counterexamples are saved");
}

// How the engine's results are judged and on which cases, shared by run, check and replay.
void addPolicyAndDomain(CLI::App* command, std::string& policy, std::string& domain, std::string& profile) {
  command->add_option("--profile", profile,
                      "the engine's profile as JSON: carriers, ops, single-output pass, conventions "
                      "(docs/semantics.md §3.6; default: spec)");
  command->add_option("--policy", policy,
                      "bits: IEEE bit patterns; values: -0 == +0, any NaN equals any NaN (default: the engine's "
                      "announced policy, else bits)")
      ->check(CLI::IsMember({"bits", "values"}));
  command->add_option("--domain", domain,
                      "default: every value; exact: IEEE cases proven exact in every evaluation order, plus "
                      "the exact_reference property")
      ->check(CLI::IsMember({"default", "exact"}));
}

// An engine in another process instead of a built-in one (docs/engine-protocol.md).
void addEngineCommand(CLI::App* command, std::string& engineCommand, double& timeout) {
  auto* cmd = command->add_option("--engine-cmd", engineCommand,
                                  "check the engine this shell command starts, speaking the engine protocol "
                                  "(docs/engine-protocol.md) instead of a built-in engine");
  cmd->excludes(command->get_option("--engine"));
  command->add_option("--engine-timeout", timeout, "seconds to wait for each answer of --engine-cmd (default 10)")
      ->check(CLI::Range(0.001, 86400.0));
}

void addSurvey(CLI::App* command, bool& survey) {
  command->add_flag("--survey", survey,
                    "do not stop at a property's first failure: tally failures by op and class of difference, "
                    "one shrunk example saved per kind");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tc::cli;
  using tc::kCarrierNames;
  CLI::App app{"tapecheck: exact property-based checks for reverse-mode autograd"};
  app.require_subcommand(1);
  app.option_defaults()->always_capture_default();  // --help shows every default

  GradOptions grad;
  auto* gradCommand = app.add_subcommand("grad", "Evaluate and differentiate one graph file");
  gradCommand->add_option("FILE", grad.file, "graph or case file (JSON, docs/semantics.md §4)")->required();
  gradCommand->add_option("--carrier", grad.carrier, "scalar type")->check(CLI::IsMember(kCarrierNames));
  gradCommand->add_option("--engine", grad.engine, "reference semantics, runtime tape, or compiled passes")
      ->check(CLI::IsMember(tc::builtinEngineNames()));
  gradCommand->add_flag("--single", grad.single,
                        "seed only the output (compiled: backwardDenseAllFrom) and report the programs run");
  gradCommand->add_option("--format", grad.format, "output format")->check(CLI::IsMember({"text", "json"}));

  RunOptions run;
  auto* runCommand = app.add_subcommand("run", "Check every property on every carrier with generated cases (the main job)");
  runCommand->add_option("--cases", run.cases, "generated cases per property and carrier")->check(CLI::Range(1, 1000000));
  addPropertyChoices(runCommand, run.seed, run.carrier, run.property, run.engine, run.saveDir, "one carrier, or all");
  runCommand->add_option("--max-size", run.maxSize, "largest generated case size, 0 to 100 (scales the node count)")
      ->check(CLI::Range(0, 100));
  runCommand->add_option("--shard", run.shard,
                         "I/N: run only rows I, I+N, ... (default: GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS when set)");
  runCommand->add_option("--json", run.jsonFile, "write the results as JSON to this file");
  runCommand->add_option("--junit", run.junitFile, "write JUnit XML (a testcase per property x carrier) to this file");
  runCommand->add_flag("--quiet", run.quiet, "print only failures and the summary line");
  addPolicyAndDomain(runCommand, run.policy, run.domain, run.profileFile);
  addEngineCommand(runCommand, run.engineCommand, run.engineTimeout);
  addSurvey(runCommand, run.survey);

  ReplayOptions replay;
  auto* replayCommand = app.add_subcommand("replay", "Re-run a saved counterexample's property (or all) and print the listing");
  replayCommand->add_option("CASE", replay.file, "a case file, e.g. one saved by tapecheck run")->required();
  replayCommand->add_option("--property", replay.property, "default: the file's failure.property, else all");
  replayCommand->add_option("--carrier", replay.carrier, "default: the file's failure.carrier, else rational");
  replayCommand->add_option("--engine", replay.engine, "default: the file's failure.engine, else compiled");
  addPolicyAndDomain(replayCommand, replay.policy, replay.domain, replay.profileFile);
  addEngineCommand(replayCommand, replay.engineCommand, replay.engineTimeout);
  replayCommand->add_flag("--survey", replay.survey, "name each failure's kind: the op blamed and the class of difference");

  CheckOptions check;
  auto* checkCommand = app.add_subcommand("check", "Run every applicable property on your graph file");
  checkCommand->add_option("GRAPH", check.file, "a graph or case file (JSON, docs/semantics.md §4)")->required();
  checkCommand->add_option("--cases", check.cases, "random input and seed draws besides the file's own values")
      ->check(CLI::Range(0, 1000000));
  addPropertyChoices(checkCommand, check.seed, check.carrier, check.property, check.engine, check.saveDir,
                     "one carrier, or all (those the graph loads on)");
  addPolicyAndDomain(checkCommand, check.policy, check.domain, check.profileFile);
  addEngineCommand(checkCommand, check.engineCommand, check.engineTimeout);
  addSurvey(checkCommand, check.survey);

  ShowOptions show;
  auto* showCommand = app.add_subcommand("show", "Print a case file as a listing, or as a Graphviz picture");
  showCommand->add_option("FILE", show.file, "a graph or case file")->required();
  showCommand->add_option("--carrier", show.carrier, "default: the file's failure.carrier, else rational");
  showCommand->add_flag("--dot", show.dot, "print Graphviz DOT (render with: dot -Tsvg)");

  MutantsOptions mutants;
  auto* mutantsCommand = app.add_subcommand("mutants", "Run the default suite once per built-in mutant (mutant builds only)");
  mutantsCommand->add_option("--cases", mutants.cases, "cases per property")->check(CLI::Range(1, 1000000));
  mutantsCommand->add_option("--seed", mutants.seed, "random seed of every run")->check(kUnsigned);
  mutantsCommand->add_option("--format", mutants.format, "text, or json (one object per mutant, then a summary line)")
      ->check(CLI::IsMember({"text", "json"}));
  mutantsCommand->add_option("--timeout", mutants.timeoutSeconds, "seconds per mutant before it counts as not killed")
      ->check(CLI::Range(1.0, 86400.0));
  mutantsCommand->add_option("--only", mutants.only, "comma-separated mutant ids (default: all)");

  std::string serveEngine = "compiled";
  auto* serveCommand = app.add_subcommand(
      "serve", "Answer the engine protocol on stdin/stdout with a built-in engine (docs/engine-protocol.md)");
  serveCommand->add_option("--engine", serveEngine, "the built-in engine that answers")
      ->check(CLI::IsMember(tc::builtinEngineNames()));

  BenchOptions bench;
  auto* benchCommand = app.add_subcommand("bench", "Time the compiled passes on a synthetic workload (JSON lines)");
  benchCommand->add_option("WORKLOAD", bench.workload, "relu-chain, single-output or mlp")
      ->required()
      ->check(CLI::IsMember({"relu-chain", "single-output", "mlp"}));
  benchCommand->add_option("--nodes", bench.nodes, "graph size (relu-chain, single-output)");
  benchCommand->add_option("--support", bench.support, "nodes the output depends on (single-output)");
  benchCommand->add_option("--carrier", bench.carrier, "double (relu-chain, mlp); rational or modp (single-output)");
  benchCommand->add_option("--repeat", bench.repeat, "runs per figure; the median is printed");
  benchCommand->add_option("--width", bench.width, "layer width (mlp)");
  benchCommand->add_option("--depth", bench.depth, "layers (mlp)");

  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> commands;
    for (const CLI::App* command : app.get_subcommands({})) commands.push_back(command->get_name());
    if (std::find(commands.begin(), commands.end(), argv[1]) == commands.end())
      return report(kUsage, fmt::format("no command {}; the commands are: {} (run 'tapecheck --help')",
                                        tc::quote(argv[1]), fmt::join(commands, ", ")));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return report(kUsage, std::string(e.what()) + " (run 'tapecheck --help')");
  }
  try {
    if (*gradCommand) return runGrad(grad);
    if (*runCommand) return runProperties(run);
    if (*replayCommand) return replayCase(replay);
    if (*checkCommand) return checkGraph(check);
    if (*showCommand) return showCase(show);
    if (*mutantsCommand) return runMutants(mutants);
    if (*benchCommand) return runBench(bench);
    if (*serveCommand) return tc::process::serve(serveEngine, 0, stdout);
  } catch (const tc::process::ProtocolError& e) {
    return report(kUsage, e.what());
  } catch (const std::exception& e) {
    return report(kUsage, std::string("internal error: ") + e.what());
  }
  return kUsage;
}
