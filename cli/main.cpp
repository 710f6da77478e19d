// tapecheck's command line (cli/main.h): the commands, their options, and the engines they check.
#include "cli/main.h"

#include <CLI/CLI.hpp>
#include <malloc.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include "core/support/text.h"
#include "properties/runner/all.h"
#include "cli/case_commands.h"
#include "cli/engine_choice.h"
#include "cli/exit_codes.h"
#include "cli/budget.h"
#include "cli/grad.h"
#include "cli/run.h"
#include "cli/unsigned_option.h"
#include "adapters/process/engine_process.h"
#include "adapters/process/interrupt.h"
#include "adapters/process/serve.h"
#include "core/carriers/dispatch.h"
#include "properties/engines/engine.h"

namespace tc::cli {
namespace {

// --engine on run, check, replay and serve: the program's engines, then the built-in ones.
CLI::Option* addEngineName(CLI::App* command, std::string& engine, const EngineCatalog& engines, const std::string& help,
                           const std::string& defaultText = "") {
  return command
      ->add_option("--engine", engine,
                   fmt::format("{} (default: {}{})", help, defaultText, engines.defaultName()))
      ->check(CLI::IsMember(engines.names()));
}

// The options `run` and `check` share: which properties, carriers and engine, the seed, and where
// counterexamples go.
void addPropertyChoices(CLI::App* command, std::optional<std::uint64_t>& seed, std::string& carrier,
                        std::string& property, std::string& engine, std::string& saveDir, const std::string& carrierHelp,
                        const EngineCatalog& engines) {
  std::vector<std::string> carriers = tc::kCarrierNames;
  carriers.push_back("all");
  command->add_option("--seed", seed, "random seed (default: from the clock; printed)")->check(kUnsigned);
  command->add_option("--carrier", carrier, carrierHelp)->check(CLI::IsMember(carriers));
  std::string names;
  for (std::string_view name : tc::props::allPropertyNames()) names += (names.empty() ? "" : ", ") + std::string(name);
  command->add_option("--property", property, "one property by name, or all: " + names);
  addEngineName(command, engine, engines, "the engine the engine-scoped properties check");
  command->add_option("--save-failures", saveDir, "where shrunk counterexamples are saved (created when needed)")
      ->check(kNonEmptyPath);
}

// How the engine's results are judged and on which cases, shared by run, check and replay;
// `domainDefault` says what no --domain means for that command.
void addPolicyAndDomain(CLI::App* command, std::string& policy, std::string& domain, std::string& profile,
                        std::string_view domainDefault) {
  command->add_option("--profile", profile,
                      "the engine's profile as JSON: carriers, ops, single-output pass, conventions "
                      "(docs/semantics.md §3.6; default: spec)");
  command->add_option("--policy", policy,
                      "bits: IEEE bit patterns; values: -0 == +0, any NaN equals any NaN (default: the engine's "
                      "announced policy, else bits)")
      ->check(CLI::IsMember({"bits", "values"}));
  command->add_option("--domain", domain,
                      fmt::format("default: every value; exact: IEEE cases proven exact in every evaluation order, "
                                  "plus the exact_reference property (default: {})",
                                  domainDefault))
      ->check(CLI::IsMember({"default", "exact"}));
}

// An engine in another process instead of a named one (docs/engine-protocol.md), and isolation.
void addEngineCommand(CLI::App* command, std::string& engineCommand, double& timeout, std::optional<bool>& isolate,
                      std::string& log) {
  auto* cmd = command->add_option("--engine-cmd", engineCommand,
                                  "check the engine this shell command starts, speaking the engine protocol "
                                  "(docs/engine-protocol.md) instead of a named engine");
  cmd->check(kNonEmptyCommand);
  cmd->excludes(command->get_option("--engine"));
  command->add_option("--engine-timeout", timeout,
                      "seconds to wait for each answer (each case) of an engine in another process")
      ->check(CLI::Range(0.001, 86400.0));
  command->add_flag_function(
      "--isolate,!--no-isolate", [&isolate](std::int64_t count) { isolate = count > 0; },
      "run the engine in a forked copy of this program, so that a crash or a hang fails the case instead of "
      "ending the run (default: on for an engine that is not built in)");
  command->add_option("--engine-log", log,
                      "record the exchange with the engine's process in this file: '> ' lines sent (the engine's "
                      "input, to rerun a case by hand), '< ' lines read, '# ' starts and faults")
      ->check(kNonEmptyPath);
}

void addSurvey(CLI::App* command, bool& survey) {
  command->add_flag("--survey", survey,
                    "do not stop at a property's first failure: tally failures by op and class of difference, "
                    "one shrunk example saved per kind");
}

// --full, on the commands that print a case's listing.
void addFullListing(CLI::App* command, bool& full) {
  command->add_flag("--full", full,
                    fmt::format("list every value (else a position of more than {} shows the first {}, the last "
                                "and how many)",
                                kListedValues, kListedValues - 2));
}

// --max-work and --max-memory, on every command that runs a user's file or request (cli/budget.h).
void addBudgetOptions(CLI::App* command, BudgetOptions& options, const std::string& what = "file") {
  command->add_option("--max-work", options.maxWork,
                      "refuse a " + what + " whose estimated work passes this many operations (about nanoseconds; "
                      "docs/semantics.md §4.5)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("--max-memory", options.maxMemoryMib,
                      "refuse a " + what + " whose estimated memory passes this many MiB")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

// What `serve` allows a request (adapters/process/serve.h): a line of at most kMaxLine bytes and at
// most the memory budget, its JSON and its case within the budget.
process::ServeLimits serveLimits(const BudgetOptions& options, bool denseOrder) {
  const Budget budget = options.budget();
  const auto maxLine = static_cast<std::size_t>(std::min(static_cast<double>(process::kMaxLine), budget.memory));
  return process::ServeLimits{maxLine, budget, denseOrder, std::string(kRaiseWork), std::string(kRaiseMemory)};
}

// The name printed command lines call the program by: "tapecheck", "minigrad_check".
std::string programName(const char* argv0) {
  std::string path = argv0 && *argv0 ? argv0 : "tapecheck";
  return path.substr(path.find_last_of('/') + 1);
}

// Passes allocate tensors of the sizes earlier passes freed. By default glibc maps every block over
// 128 KiB afresh and returns it to the kernel when freed (and trims the heap above 128 KiB free),
// so each pass paid a page fault per 4 KiB of its larger tensors: a 256-wide MLP's backward spent a
// third of its time faulting. Kept for reuse instead, freed memory costs only the peak already reached.
void keepFreedMemoryForReuse() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest: bigger blocks are still mapped on their own
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
}

}  // namespace

int main(int argc, char** argv, std::vector<NamedEngine> engines, std::vector<ExtraCommand> extra) {
  keepFreedMemoryForReuse();
  // SIGINT, SIGTERM, SIGHUP end every engine's tree and remove a report half written, then end
  // tapecheck with the signal's status (docs/threat-model.md §5).
  process::installInterruptHandlers();
  const Program program{programName(argc > 0 ? argv[0] : nullptr), EngineCatalog(std::move(engines))};
  const EngineCatalog& catalog = program.engines;
  CLI::App app{program.name + ": exact property-based checks for reverse-mode autograd"};
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
  addBudgetOptions(gradCommand, grad.budget);

  RunOptions run;
  auto* runCommand = app.add_subcommand("run", "Check every property on every carrier with generated cases (the main job)");
  runCommand->add_option("--cases", run.cases, "generated cases per property and carrier")->check(CLI::Range(1, 1000000));
  addPropertyChoices(runCommand, run.seed, run.carrier, run.property, run.engine, run.saveDir, "one carrier, or all", catalog);
  runCommand->add_option("--max-size", run.maxSize, "largest generated case size, 0 to 100 (scales the node count)")
      ->check(CLI::Range(0, 100));
  runCommand->add_option("--shard", run.shard,
                         "I/N: run only rows I, I+N, ... (default: GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS when set)");
  runCommand->add_option("--json", run.jsonFile, "write the results as JSON to this file")->check(kNonEmptyPath);
  runCommand->add_option("--junit", run.junitFile, "write JUnit XML (a testcase per property x carrier) to this file")
      ->check(kNonEmptyPath);
  runCommand->add_flag("--quiet", run.quiet, "print only failures and the summary line");
  runCommand->add_option("--corpus", run.corpus,
                         "judge first the counterexamples saved for this engine in this folder (default: the "
                         "--save-failures folder)")
      ->check(kNonEmptyPath);
  runCommand->add_flag("!--no-replay-saved", run.replaySaved,
                       "do not judge the saved counterexamples before generating cases");
  auto* timeBudget = runCommand->add_option(
      "--time-budget", run.timeBudget,
      "keep running every row in rounds with seeds S, S+1, ... until this many seconds are spent (a soak run; "
      "a row that fails is not run again)");
  timeBudget->check(CLI::Range(0.001, 1e7));
  addPolicyAndDomain(runCommand, run.policy, run.domain, run.profileFile,
                     "for an engine not tapecheck's own, the engine verdict, each property in its own domain; else "
                     "default, with exact_reference and forward_oracle on double and float on the exact domain");
  addEngineCommand(runCommand, run.engineCommand, run.engineTimeout, run.isolate, run.engineLog);
  addSurvey(runCommand, run.survey);
  timeBudget->excludes(runCommand->get_option("--survey"));  // a survey's kinds are tallied per round

  ReplayOptions replay;
  auto* replayCommand = app.add_subcommand("replay", "Re-run a saved counterexample's property (or all) and print the listing");
  replayCommand->add_option("CASE", replay.file, "a case file, e.g. one saved by tapecheck run")->required();
  replayCommand->add_option("--property", replay.property, "default: the file's failure.property, else all");
  replayCommand->add_option("--carrier", replay.carrier, "default: the file's failure.carrier, else rational");
  addEngineName(replayCommand, replay.engine, catalog, "the engine to replay on", "the file's failure.engine, else ");
  addPolicyAndDomain(replayCommand, replay.policy, replay.domain, replay.profileFile,
                     "the domain the file records; else, for an engine not tapecheck's own, the engine verdict, "
                     "else default");
  addEngineCommand(replayCommand, replay.engineCommand, replay.engineTimeout, replay.isolate, replay.engineLog);
  replayCommand->add_flag("--survey", replay.survey, "name each failure's kind: the op blamed and the class of difference");
  addFullListing(replayCommand, replay.full);
  addBudgetOptions(replayCommand, replay.budget);

  CheckOptions check;
  auto* checkCommand = app.add_subcommand("check", "Run every applicable property on your graph file");
  checkCommand->add_option("GRAPH", check.file, "a graph or case file (JSON, docs/semantics.md §4)")->required();
  auto* checkCases =
      checkCommand
          ->add_option("--cases", check.cases,
                       "random input and seed draws besides the file's own values (default 100, or as many as the "
                       "budget allows on a carrier)")
          ->check(CLI::Range(0, 1000000));
  addPropertyChoices(checkCommand, check.seed, check.carrier, check.property, check.engine, check.saveDir,
                     "one carrier, or all (those the graph loads on)", catalog);
  addPolicyAndDomain(checkCommand, check.policy, check.domain, check.profileFile,
                     "for an engine not tapecheck's own, the engine verdict, each property in its own domain; "
                     "else default");
  addEngineCommand(checkCommand, check.engineCommand, check.engineTimeout, check.isolate, check.engineLog);
  addSurvey(checkCommand, check.survey);
  addBudgetOptions(checkCommand, check.budget);
  checkCommand->add_flag("--quiet", check.quiet, "print only failures, carriers not checked and the summary line");

  ShowOptions show;
  auto* showCommand = app.add_subcommand("show", "Print a case file as a listing, or as a Graphviz picture");
  showCommand->add_option("FILE", show.file, "a graph or case file")->required();
  showCommand->add_option("--carrier", show.carrier, "default: the file's failure.carrier, else the first carrier the file loads on");
  showCommand->add_flag("--dot", show.dot, "print Graphviz DOT (render with: dot -Tsvg)");
  addFullListing(showCommand, show.full);
  addBudgetOptions(showCommand, show.budget);

  std::string serveName;
  BudgetOptions serveBudget;
  auto* serveCommand = app.add_subcommand(
      "serve", "Answer the engine protocol on stdin/stdout with an engine (docs/engine-protocol.md)");
  addEngineName(serveCommand, serveName, catalog, "the engine that answers");
  addBudgetOptions(serveCommand, serveBudget, "request");

  std::vector<std::pair<CLI::App*, std::function<int()>>> extraCommands;
  for (const ExtraCommand& command : extra) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    extraCommands.emplace_back(sub, command.add(*sub));
  }

  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> commands;
    for (const CLI::App* command : app.get_subcommands({})) commands.push_back(command->get_name());
    if (std::find(commands.begin(), commands.end(), argv[1]) == commands.end())
      return report(kUsage, fmt::format("no command {}; the commands are: {} (run '{} --help')", quote(argv[1]),
                                        fmt::join(commands, ", "), program.name));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return report(kUsage, fmt::format("{} (run '{} --help')", e.what(), program.name));
  }
  try {
    if (*gradCommand) return runGrad(grad);
    if (*runCommand) return runProperties(run, program);
    if (*replayCommand) return replayCase(replay, program);
    if (*checkCommand) {
      check.casesGiven = checkCases->count() > 0;
      return checkGraph(check, program);
    }
    if (*showCommand) return showCase(show, program);
    if (*serveCommand) {
      const std::string name = serveName.empty() ? catalog.defaultName() : serveName;
      return serveEngine(name, catalog.registered(name), 0, stdout, serveLimits(serveBudget, runsTheDenseOrder(name)));
    }
    for (const auto& [command, runs] : extraCommands)
      if (*command) return runs();
  } catch (const process::ProtocolError& e) {
    return report(kUsage, e.what());
  } catch (const std::exception& e) {
    return report(kUsage, std::string("internal error: ") + e.what());
  }
  return kUsage;
}

}  // namespace tc::cli
