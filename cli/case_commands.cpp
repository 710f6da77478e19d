#include "cli/case_commands.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cassert>
#include <chrono>

#include "cli/case_input.h"
#include "cli/engine_choice.h"
#include "cli/exit_codes.h"
#include "cli/output_files.h"
#include "cli/run_output.h"
#include "core/carriers/dispatch.h"
#include "core/io/case_file.h"
#include "core/ops/library.hpp"
#include "core/spec/exactness.h"
#include "core/support/text.h"
#include "generators/generate.h"
#include "properties/oracles/index_bounds.h"
#include "properties/runner/report.h"
#include "properties/runner/runner.h"

namespace tc::cli {
namespace {

std::vector<std::string> propertyNames() {
  std::vector<std::string> names{"all"};
  for (std::string_view name : props::allPropertyNames()) names.emplace_back(name);
  return names;
}

// Whether the file's graph and values load on carrier T, judged before the seed pack is built
// (which may be large: the budget judges that on the carrier chosen).
template <class T>
bool structureLoads(const CaseInput& input) {
  bool loads = false;
  (void)loadCase<T>(input, [&](const Case<T>&) -> Result<void> {
    loads = true;
    return fail("loaded");  // stops the loader here
  });
  return loads;
}

// The properties a run chooses: one by name, or all that apply to the carrier in the domain (an
// engine in another process answers only the engine-scoped ones); either way only those that
// apply to `graph`'s ops, when given (kink_conventions needs a node with a kink).
template <class T>
std::vector<const props::NamedProperty<T>*> chosenProperties(const std::string& property, bool external,
                                                             gen::Domain domain, const Graph<T>* graph = nullptr) {
  std::vector<const props::NamedProperty<T>*> chosen;
  for (const auto& p : props::propertiesFor<T>(domain))
    if ((property == "all" ? !(external && p.scope == props::Scope::runtime) : property == p.name) &&
        (!graph || props::appliesToGraph(p, *graph)))
      chosen.push_back(props::findProperty<T>(p.name));
  return chosen;
}

// How check and replay name what they judge: the engine verdict, or a domain.
std::string judgingName(const Judging& judging) {
  return judging.verdict ? "the engine verdict" : fmt::format("domain {}", gen::domainName(judging.domain));
}

// Where domains mix (the engine verdict; in run, also its re-judging of saved failures with the exact
// rows), on an IEEE carrier, drops the properties judged on the exact domain when `graph` has an op
// outside it (every case of the graph is, so they would compare nothing) and, when `say`, prints
// which and why: the graph is then judged on every value only.
template <class T>
void dropExactRowsOutside(std::vector<const props::NamedProperty<T>*>& chosen, const Judging& judging,
                          const Graph<T>& graph, bool say) {
  if (!judging.mixesDomains()) return;
  // The exact domain is the IEEE carriers' (checkOpsInExactDomain is instantiated for them only): with
  // `if constexpr` an -O0 build, which keeps calls a run-time test would skip, links too.
  Result<void> ops;
  if constexpr (std::is_floating_point_v<T>) ops = spec::checkOpsInExactDomain(graph);
  if (ops) return;
  std::vector<std::string_view> dropped;
  std::erase_if(chosen, [&](const auto* p) {
    const bool exact = judging.domainOf<T>(p->name) == gen::Domain::exact;
    if (exact) dropped.push_back(p->name);
    return exact;
  });
  if (say && !dropped.empty())
    fmt::print("on {}: judged on every value only, as the exact domain cannot hold this graph ({}); left out: {}\n",
               Carrier<T>::name, ops.error().message, fmt::join(dropped, ", "));
}

// The properties a command judges on `graph`: those `property` names that apply to it, less those
// the engine verdict cannot judge on it (dropExactRowsOutside).
template <class T>
std::vector<const props::NamedProperty<T>*> judgedProperties(const std::string& property, bool external,
                                                             const Judging& judging, const Graph<T>& graph) {
  auto chosen = chosenProperties<T>(property, external, judging.listedDomain(), &graph);
  dropExactRowsOutside<T>(chosen, judging, graph, false);
  return chosen;
}

// Says which of the properties `property` names on T a graph leaves out, having no node they compare
// (`applying`: chosenProperties on the graph), and what each needs.
template <class T>
void printLeftOut(const std::string& property, bool external, gen::Domain domain,
                  const std::vector<const props::NamedProperty<T>*>& applying) {
  std::vector<std::string> leftOut;
  for (const auto* p : chosenProperties<T>(property, external, domain))
    if (std::ranges::find(applying, p) == applying.end())
      leftOut.push_back(fmt::format("{} (needs {})", p->name, p->needsWhat));
  if (!leftOut.empty())
    fmt::print("on {}: left out, as this graph has nothing they compare: {}\n", Carrier<T>::name,
               fmt::join(leftOut, ", "));
}

// How many of the chosen properties are the one named (the accuracy oracle, whose enclosures the
// budget counts apart; exact_reference).
template <class T>
double runsOf(const std::vector<const props::NamedProperty<T>*>& chosen, std::string_view name) {
  return static_cast<double>(std::ranges::count_if(chosen, [&](const auto* p) { return p->name == name; }));
}

// What `draws` draws of the chosen properties cost besides their own passes: exact_reference's
// reference on rationals, the exactness checker before each engine-scoped property in the exact
// domain, the case files index_bounds and file_round_trip write and read back, and by the engine under
// test the values exchanged with an engine in another process, or the reverse passes in the literal
// dense order that a built-in engine running it is asked for.
template <class T>
void addPropertyCosts(PassCounts& passes, double draws, const std::vector<const props::NamedProperty<T>*>& chosen,
                      const EngineSource& engine, const Graph<T>& graph, const Judging& judging) {
  const std::size_t positions = graph.positionCount();
  std::size_t readLists = 0;  // the index lists some node reads
  for (const auto& [key, entries] : graph.schema.indices) readLists += !props::indices::readersOf(graph, key).empty();
  passes.exactReferenceRuns += draws * runsOf(chosen, "exact_reference");
  for (const auto* p : chosen) {
    if (std::is_floating_point_v<T> && judging.domainOf<T>(p->name) == gen::Domain::exact &&
        p->scope == props::Scope::engine)
      passes.exactnessChecks += draws;
    passes.documentRoundTrips += draws * documentRoundTrips(p->name, readLists);
    if (engine.external()) passes.exchangedValues += draws * exchangedPacks(p->name, positions);
    else if (p->scope == props::Scope::engine && runsTheDenseOrder(engine.name()))
      passes.dense += draws * reversePassesAsked(p->name, positions);
  }
}

// A case's listing for `replay` and `show`: with `full` every value, else kListedValues per position
// and column, saying so when a position has more.
template <class T>
void printListing(const CaseInput& input, const Case<T>& loaded, const props::Verdict& verdict, bool full) {
  fmt::print("{}", props::formatCaseListing<T>(loaded, verdict, full ? 0 : kListedValues));
  const Graph<T>& graph = loaded.graph;
  for (std::size_t p = 0; p < graph.positionCount() && !full; ++p)
    if (elementCount(graph.shapeAt(p)) > kListedValues) {
      fmt::print("(a position of more than {} values lists the first {}, the last and how many; --full lists every "
                 "value)\n",
                 kListedValues, kListedValues - 2);
      break;
    }
}

// The properties `replay` judges on `graph`: those that apply to it, or the one named even where it
// does not (a saved failure's replay says why it compares nothing).
template <class T>
std::vector<const props::NamedProperty<T>*> replayedProperties(const std::string& property, const EngineSource& source,
                                                               const Judging& judging, const Graph<T>& graph) {
  auto chosen = judgedProperties<T>(property, source.external(), judging, graph);
  if (chosen.empty() && props::findProperty<T>(property)) chosen.push_back(props::findProperty<T>(property));
  return chosen;
}

// A saved case loaded for replay on carrier T, refused when one draw of the properties replayed on
// it would pass the budget.
template <class T>
Result<Case<T>> loadForReplay(const CaseInput& input, const std::string& property, const EngineSource& source,
                              const Judging& judging, const BudgetOptions& budget) {
  return loadCase<T>(input, [&](const Case<T>& c) {
    const auto chosen = replayedProperties<T>(property, source, judging, c.graph);
    const double runs = static_cast<double>(std::max<std::size_t>(chosen.size(), 1));
    PassCounts passes =
        withAccuracyRuns(propertyPasses(runs, 3), runsOf(chosen, "accuracy"), 0, judging.domainOf<T>("accuracy"));
    addPropertyCosts(passes, 1, chosen, source, c.graph, judging);
    if (const double reader = runsOf(chosen, "literal_reader"); reader > 0 && c.inputs)
      passes.fixedWork = literalReaderWork(c.graph, distinctLeafValues(c), reader, 0);
    return budgetGate<T>(passes, budget)(c);
  });
}

// One property judged on a loaded case as `judging` judges it (on the exact domain where it puts
// the property).
template <class T>
props::Verdict judgeLoaded(const props::NamedProperty<T>& property, const EngineSource& source, const Judging& judging,
                           const Case<T>& loaded) {
  props::EngineUnderTest<T> subject{source.engine<T>(), judging.policy, judging.profile,
                                    judging.domainOf<T>(property.name) == gen::Domain::exact};
  return props::checkLoadedCase(property, subject, loaded);
}

template <class T>
int replayOn(const CaseInput& input, const std::string& property, const EngineSource& source, const Judging& judging,
             bool survey, bool full, const BudgetOptions& budget) {
  auto loaded = loadForReplay<T>(input, property, source, judging, budget);
  if (!loaded) return report(kUsage, loaded.error().message);
  if (!loaded->inputs) return report(kUsage, input.path + ": values: replay needs the input values");
  const auto chosen = replayedProperties<T>(property, source, judging, loaded->graph);
  if (chosen.empty()) return report(kUsage, fmt::format("replay: {} does not apply to carrier {}", property, Carrier<T>::name));
  fmt::print("replay {} on {} with engine {}, {}, policy {}\n", input.path, Carrier<T>::name, source.description(),
             judgingName(judging),
             props::policyName(judging.policy));
  if (property == "all") {
    auto applying = chosenProperties<T>(property, source.external(), judging.listedDomain(), &loaded->graph);
    printLeftOut<T>(property, source.external(), judging.listedDomain(), applying);
    dropExactRowsOutside<T>(applying, judging, loaded->graph, true);
  }
  std::size_t failed = 0;
  props::Verdict shown;
  for (const auto* p : chosen) {
    props::Verdict verdict = judgeLoaded(*p, source, judging, *loaded);
    std::string result = !verdict.holds                ? "FAIL: " + verdict.why
                         : !verdict.unsupported.empty() ? "not run (the engine does not support op " + verdict.unsupported + ")"
                         : !verdict.skipped.empty()     ? "not compared (does not apply: " + verdict.skipped + ")"
                                                        : std::string("pass");
    fmt::print("  {:<42} {}\n", p->name, result);
    if (survey && !verdict.holds)
      fmt::print("  {:<42} kind: op {}, {}\n", "", props::blamedOp(*loaded, verdict),
                 verdict.differenceClass ? fmt::format("{} {}", props::differenceIn(verdict),
                                                       props::kDifferenceClasses[*verdict.differenceClass])
                                         : std::string("error"));
    if (!verdict.holds && failed++ == 0) shown = verdict;
  }
  printListing<T>(input, *loaded, shown, full);
  return failed ? kFailed : kSuccess;
}

constexpr gen::Values kExactDomainDraws[] = {gen::Values::pooled, gen::Values::powersOfTwo, gen::Values::units};

template <class T>
void checkOn(const CaseInput& input, const Case<T>& loaded, const CheckOptions& options, const Program& program,
             const EngineSource& engines, const Judging& judging, std::uint64_t seed, std::vector<RunRow>& rows) {
  const bool ownValues = loaded.inputs.has_value();
  const Engine<T>& engine = engines.engine<T>();
  auto applying = chosenProperties<T>(options.property, engines.external(), judging.listedDomain(), &loaded.graph);
  if (!options.quiet) printLeftOut<T>(options.property, engines.external(), judging.listedDomain(), applying);
  dropExactRowsOutside<T>(applying, judging, loaded.graph, !options.quiet);
  for (const auto* chosen : applying) {
    const auto& p = *chosen;
    const gen::Domain domain = judging.domainOf<T>(p.name);
    props::EngineUnderTest<T> subject{engine, judging.policy, judging.profile, domain == gen::Domain::exact};
    props::CaseSource<T> source = [&](std::size_t i) {
      if (ownValues && i == 0) return props::SourcedCase<T>{input.doc, loaded};
      const std::size_t draw = i - (ownValues ? 1 : 0);
      // Every other draw, the first among them, spread for a property that compares off kinks; in the
      // exact domain a third of the draws of each of three pools, the later ones exact on deeper graphs.
      gen::Values values = p.comparesOffKinks && draw % 2 == 0 ? gen::Values::spread : gen::Values::pooled;
      if (std::is_floating_point_v<T> && domain == gen::Domain::exact) values = kExactDomainDraws[draw % 3];
      return props::SourcedCase<T>{
          nullptr, gen::withRandomValues<T>(loaded, props::caseSeed(seed, p.name, Carrier<T>::name, i), domain, values)};
    };
    RunRow row{std::string(p.name), std::string(Carrier<T>::name),
               props::runPropertyOn(p, subject, options.cases + (ownValues ? 1 : 0), source, nullptr, options.survey),
               {}, {}, {}, {}};
    row.domain = std::string(gen::domainName(domain));
    row.domainShown = judging.mixesDomains();
    const JudgedBy judged{judging, row.domain, options.profileFile};
    if (options.survey)
      saveSurveyKinds<T>(row, engines, seed, options.saveDir, judged);
    else if (row.run.failure)
      reportFailure<T>(row, program, engines, seed, options.saveDir, judged,
                       fmt::format("{} check {} --property {} --carrier {} {}{} --seed {} --cases {}", program.name,
                                   shellWord(input.path), p.name, Carrier<T>::name, engines.flags(), judged.flags(), seed,
                                   options.cases));
    rows.push_back(std::move(row));
  }
}

// What `check` settles for one carrier before it runs: the draws (fitted to the budget without
// --cases) and their estimated work, which the carriers after it cannot spend.
struct CheckFit {
  std::size_t cases = 0;
  double work = 0;
};

// `check`'s gate on one carrier: every chosen property on each draw (the file's values, if any,
// and `fit.cases` random ones) within `budget`, this carrier's share of the command's. Without an
// explicit --cases, a case the default number of draws does not fit passes with the most that do
// (at least the file's own values, or one draw; one draw with exact_reference). `share` says how the
// budget was shared.
template <class T>
CaseGate<T> checkGate(const CheckOptions& options, const BudgetOptions& budget, const std::string& share,
                      const EngineSource& engine, const Judging& judging, CheckFit& fit) {
  return [=, &options, &engine, &judging, &fit](const Case<T>& c) -> Result<void> {
    // An op the exact domain lacks puts every case of the graph outside it, where the engine is judged
    // on none (the engine verdict judges such a graph on every value only: dropExactRowsOutside).
    if constexpr (std::is_floating_point_v<T>)
      if (!judging.verdict && judging.domain == gen::Domain::exact)
        if (auto ops = spec::checkOpsInExactDomain(c.graph); !ops) return ops;
    const auto chosen = judgedProperties<T>(options.property, engine.external(), judging, c.graph);
    const double properties = static_cast<double>(chosen.size());
    const double accuracy = runsOf(chosen, "accuracy");
    const double reader = runsOf(chosen, "literal_reader");
    const bool exact = runsOf(chosen, "exact_reference") > 0;
    const bool offKinks = std::ranges::any_of(chosen, [](const auto* p) { return p->comparesOffKinks; }) &&
                          std::ranges::any_of(c.graph.nodes, [](const Node<T>& n) { return ops::hasKinks(n.op); });
    // The fewest draws that check anything: exact_reference compares only values of the exact
    // domain, which a file's own rarely are, and adjoint_identity only values off the kinks, where a
    // file's own may not be.
    const std::size_t fewest = c.inputs && !exact && !offKinks ? 0 : 1;
    const double ownDistinct = reader > 0 && c.inputs ? distinctLeafValues(c) : 0;
    auto passesFor = [&](std::size_t n) {
      const double draws = static_cast<double>(n + (c.inputs ? 1 : 0));
      PassCounts passes = withAccuracyRuns(propertyPasses(draws * properties, 0), accuracy * (c.inputs ? 1 : 0),
                                           accuracy * static_cast<double>(n), judging.domainOf<T>("accuracy"));
      addPropertyCosts(passes, draws, chosen, engine, c.graph, judging);
      passes.fixedWork = literalReaderWork(c.graph, ownDistinct, reader, reader * static_cast<double>(n));
      return passes;
    };
    auto gateFor = [&](std::size_t n) {
      const std::string fewer = n <= fewest ? ""
                                : n == 1    ? ", or ask for --cases 0 (the file's own values alone)"
                                            : fmt::format(", or ask for fewer than {} --cases", n);
      return budgetGate<T>(passesFor(n), budget, fewer, share)(c);
    };
    fit.cases = options.cases;
    Result<void> all = gateFor(fit.cases);
    if (!all && !options.casesGiven && fewest < fit.cases) {
      std::size_t fits = fewest;
      if (Result<void> least = gateFor(fits); !least) return least;  // fewer draws would not help
      // The most draws that fit (the estimate's work grows with them): gateFor(fits) holds,
      // gateFor(over) does not.
      for (std::size_t over = fit.cases; over - fits > 1;) {
        const std::size_t middle = fits + (over - fits) / 2;
        (gateFor(middle) ? fits : over) = middle;
      }
      fit.cases = fits;
      all = {};
    }
    if (all) fit.work = estimatedWork(c.graph, c.inputs ? &*c.inputs : nullptr, c.data, passesFor(fit.cases));
    return all;
  };
}

// A saved failure re-checked on its engine (isolated when it is not built in), so that the
// positions it blames can be marked: the verdict, and why it was not re-checked (empty when it was).
template <class T>
std::pair<props::Verdict, std::string> recheck(const CaseInput& input, const Case<T>& loaded, const Program& program) {
  const auto* property = props::findProperty<T>(input.property);
  if (!property) return {props::Verdict{}, "it is not a property on this carrier"};
  if (!input.engineCommand.empty()) return {props::Verdict{}, "its engine is another process: replay it with --engine-cmd"};
  if (!loaded.inputs) return {props::Verdict{}, "the file gives no input values"};
  std::string engine = input.engine.empty() ? program.engines.defaultName() : input.engine;
  auto source = EngineSource::open({engine, "", 10, std::nullopt, ""}, program.engines);
  if (!source) return {props::Verdict{}, source.error().message};
  if (!(*source)->runsOn(Carrier<T>::name))
    return {props::Verdict{}, fmt::format("engine {} does not run on {}", engine, Carrier<T>::name)};
  const process::Hello* hello = (*source)->hello();
  props::EngineUnderTest<T> subject{(*source)->engine<T>(), hello && hello->policy ? *hello->policy : props::Policy::bits,
                                    hello ? hello->profile : specProfile()};
  return {props::checkLoadedCase(*property, subject, loaded), ""};
}

// What the picture fills red, and what red means: the positions the re-checked failure blames,
// else those the saved failure object names (a failure that holds now, or that cannot be re-run
// here, still shows where it was).
std::pair<std::set<std::size_t>, std::string> highlightOf(const CaseInput& input, const props::Verdict& verdict,
                                                          const std::string& notRechecked) {
  if (!verdict.holds) return {props::blamedPositions(verdict), props::blameMeaning(verdict)};
  if (input.positions.empty()) return {};
  return {input.positions,
          fmt::format("blamed by the saved failure of {} ({})", input.property,
                      notRechecked.empty() ? "it holds now" : "not re-checked: " + notRechecked)};
}

template <class T>
int showOn(const CaseInput& input, bool dot, bool full, const Program& program, const BudgetOptions& budget) {
  const double accuracy = input.property == "accuracy" ? 1 : 0;  // a saved failure's property is re-checked
  auto loaded = loadCase<T>(input, [&](const Case<T>& c) {
    PassCounts passes = withAccuracyRuns(showPasses(!input.property.empty()), accuracy, 0, gen::Domain::general);
    if (input.property == "literal_reader" && c.inputs)
      passes.fixedWork = literalReaderWork(c.graph, distinctLeafValues(c), 1, 0);
    return budgetGate<T>(passes, budget)(c);
  });
  if (!loaded) return report(kUsage, loaded.error().message);
  auto [verdict, notRechecked] = recheck(input, *loaded, program);
  if (dot) {
    auto [positions, meaning] = highlightOf(input, verdict, notRechecked);
    fmt::print("{}", props::formatCaseDot<T>(*loaded, positions, meaning));
    return kSuccess;
  }
  fmt::print("{} on {}: {} inputs, {} nodes, output position {}\n", input.path, Carrier<T>::name, loaded->graph.inputs.size(),
             loaded->graph.nodes.size(), loaded->output);
  if (!input.property.empty())
    fmt::print("saved failure of {}: {}\n", input.property,
               !notRechecked.empty() ? "not re-checked (" + notRechecked + ")"
               : verdict.holds       ? "it holds now"
                                     : "it still fails: " + verdict.why);
  printListing<T>(input, *loaded, verdict, full);
  return kSuccess;
}

}  // namespace

int replayCase(const ReplayOptions& options, const Program& program) {
  auto input = readCaseInput(options.file, documentBound(options.budget));
  if (!input) return report(kUsage, input.error().message);
  auto carrier = chooseName("carrier", options.carrier, input->carrier, "rational", kCarrierNames);
  auto property = chooseName("property", options.property, input->property, "all", propertyNames());
  for (const auto* chosen : {&carrier, &property})
    if (!*chosen) return report(kUsage, "replay: " + chosen->error().message);
  if (options.engineCommand.empty() && !input->engineCommand.empty())
    return report(kUsage, fmt::format("replay: {} was found with an engine in another process; a case file never runs "
                                      "a command: give it again with --engine-cmd {}",
                                      options.file, shellQuote(input->engineCommand)));
  std::string engineName;
  if (options.engineCommand.empty()) {
    auto engine = chooseName("engine", options.engine, input->engine, program.engines.defaultName(), program.engines.names());
    if (!engine)
      return report(kUsage, fmt::format("replay: {}{}; name an engine in another process with --engine-cmd",
                                        engine.error().message,
                                        options.engine.empty() ? " (the file was saved by a program that registers it)" : ""));
    engineName = *engine;
  }
  auto source = EngineSource::open({options.engineCommand.empty() ? engineName : options.engine, options.engineCommand,
                                    options.engineTimeout, options.isolate, options.engineLog},
                                   program.engines);
  if (!source) return report(kUsage, "replay: " + source.error().message);
  // Judged as the failure was (its recorded domain, policy and profile), unless told otherwise.
  const std::string domain = !options.domain.empty() ? options.domain : input->domain;
  auto judging = readJudging(options.policy.empty() ? input->policy : options.policy, domain.empty() ? "default" : domain,
                             options.profileFile, (*source)->hello(), &input->profile);
  if (!judging) return report(kUsage, "replay: " + judging.error().message);
  judging->verdict = domain.empty() && (*source)->external() && !options.survey;
  if (!judging->profile.supportsCarrier(*carrier) || !(*source)->runsOn(*carrier))
    return report(kUsage, fmt::format("replay: engine {} does not run on carrier {}", (*source)->description(), *carrier));
  return withCarrier(*carrier,
                     [&]<class T>() { return replayOn<T>(*input, *property, **source, *judging, options.survey, options.full, options.budget);
                     });
}

int checkGraph(const CheckOptions& options, const Program& program) {
  auto input = readCaseInput(options.file, documentBound(options.budget));
  if (!input) return report(kUsage, input.error().message);
  auto property = chooseName("property", options.property, "", "all", propertyNames());
  if (!property) return report(kUsage, "check: " + property.error().message);
  if (auto saves = checkDirectoryPath("--save-failures", options.saveDir); !saves)
    return report(kUsage, "check: " + saves.error().message);
  auto source =
      EngineSource::open({options.engine, options.engineCommand, options.engineTimeout, options.isolate, options.engineLog},
                         program.engines);
  if (!source) return report(kUsage, "check: " + source.error().message);
  auto judging = readJudging(options.policy, options.domain.empty() ? "default" : options.domain, options.profileFile,
                             (*source)->hello());
  if (!judging) return report(kUsage, "check: " + judging.error().message);
  judging->verdict = options.domain.empty() && (*source)->external() && !options.survey;
  if (options.cases == 0 && !(input->doc.is_object() && input->doc.contains("values")))
    return report(kUsage, "check: nothing to check: " + options.file + " gives no input values and --cases is 0");
  std::uint64_t seed = options.seed.value_or(clockSeed());
  if (!options.quiet)
    fmt::print("{} check {}: the file's values (if any) and {} random draws per property, seed {}, engine {}, "
             "{}, policy {}{}\n",
             program.name, options.file, options.cases, seed, (*source)->description(),
             judgingName(*judging),
             props::policyName(judging->policy), options.survey ? ", survey" : "");
  std::vector<std::string> carriers;
  for (const std::string& carrier : kCarrierNames) {
    if (options.carrier != "all" && options.carrier != carrier) continue;
    if (judging->profile.supportsCarrier(carrier) && (*source)->runsOn(carrier)) carriers.push_back(carrier);
    else if (options.carrier == carrier)
      fmt::print("not checked on {}: engine {} does not run on it\n", carrier, (*source)->description());
  }
  // The budget is the command's: each carrier may spend an equal share of what those before it left.
  double workLeft = options.budget.maxWork;
  std::vector<RunRow> rows;
  std::string firstError;
  for (std::size_t i = 0; i < carriers.size(); ++i) {
    const std::string& carrier = carriers[i];
    const std::size_t sharing = carriers.size() - i;
    BudgetOptions budget = options.budget;
    budget.maxWork = workLeft / static_cast<double>(sharing);
    const std::string share =
        sharing > 1 ? fmt::format(" (this carrier's share: 1/{} of what is left of --max-work)", sharing) : "";
    withCarrier(carrier, [&]<class T>() {
      CheckFit fit;
      auto loaded = loadCase<T>(*input, checkGate<T>(options, budget, share, **source, *judging, fit));
      if (loaded) {
        workLeft = std::max(0.0, workLeft - fit.work);
        if (fit.cases < options.cases && !options.quiet)
          fmt::print("on {}: {} of {} random draws, as many as {} allows (--max-work raises it; --cases {} insists)\n",
                     carrier, fit.cases, options.cases,
                     sharing > 1 ? fmt::format("its share of the budget (1/{} of what is left)", sharing) : "the budget",
                     options.cases);
        CheckOptions fitted = options;
        fitted.cases = fit.cases;
        checkOn<T>(*input, *loaded, fitted, program, **source, *judging, seed, rows);
      } else {
        if (firstError.empty()) firstError = fmt::format("on {}: {}", carrier, loaded.error().message);
        fmt::print("not checked on {}: {}\n", carrier, loaded.error().message);
      }
      return 0;
    });
  }
  if (rows.empty())
    return report(kUsage, firstError.empty()
                              ? fmt::format("check: {} does not apply to the chosen carriers and this graph's ops", *property)
                              : "check: not checked on any chosen carrier; " + firstError);
  if (!options.quiet) fmt::print("{}", formatTable(rows));
  if (options.survey) fmt::print("{}", formatSurvey(rows));
  std::size_t failed = 0, total = 0;
  for (const RunRow& row : rows) failed += !row.run.passed(), total += row.run.cases;
  fmt::print("{}{} properties x carriers, {} cases, seed {}: {}\n", options.quiet ? "" : "\n", rows.size(), total, seed,
             failed ? fmt::format("{} FAILED", failed) : std::string("all passed"));
  if (reportSaveErrors(rows)) return kUsage;
  if (reportShrinkerFault(rows, "check")) return kUsage;
  return failed ? kFailed : kSuccess;
}

int showCase(const ShowOptions& options, const Program& program) {
  auto input = readCaseInput(options.file, documentBound(options.budget));
  if (!input) return report(kUsage, input.error().message);
  // Without a carrier named, the first one the graph loads on (rational unless it has, say, exp).
  std::string fallback = "rational";
  if (options.carrier.empty() && input->carrier.empty())
    for (const std::string& carrier : kCarrierNames)
      if (withCarrier(carrier, [&]<class T>() { return structureLoads<T>(*input) ? 1 : 0; })) {
        fallback = carrier;
        break;
      }
  auto carrier = chooseName("carrier", options.carrier, input->carrier, fallback, kCarrierNames);
  if (!carrier) return report(kUsage, "show: " + carrier.error().message);
  return withCarrier(*carrier, [&]<class T>() { return showOn<T>(*input, options.dot, options.full, program, options.budget); });
}

Result<props::Verdict> rejudgeSavedCase(const CaseInput& input, const EngineSource& source, const Judging& judging,
                                        const BudgetOptions& budget) {
  assert(std::ranges::find(kCarrierNames, input.carrier) != kCarrierNames.end() && "callers match a row's carrier");
  Result<props::Verdict> verdict = fail("not judged");
  withCarrier(input.carrier, [&]<class T>() {
    const auto* property = props::findProperty<T>(input.property);
    if (!property) {
      verdict = fail(fmt::format("{}: {} is not a property on {}", input.path, input.property, input.carrier));
      return 0;
    }
    auto loaded = loadForReplay<T>(input, input.property, source, judging, budget);
    if (!loaded) verdict = std::unexpected(loaded.error());
    else if (!loaded->inputs) verdict = fail(input.path + ": values: a saved counterexample gives the input values");
    else verdict = judgeLoaded(*property, source, judging, *loaded);
    return 0;
  });
  return verdict;
}

}  // namespace tc::cli
