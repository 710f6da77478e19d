#pragma once
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <optional>

#include "core/ops/library.hpp"
#include "generators/coverage.hpp"
#include "generators/expected_shapes.hpp"
#include "generators/generate.hpp"
#include "generators/shrink.hpp"
#include "properties/counterexample.hpp"
#include "properties/engines/guarded_engine.h"
#include "properties/engines/plan_recorder.h"
#include "properties/runner/runner.h"

namespace tc::props {

namespace detail {

// Engine-scoped properties judge the engine by the reference run with its declared conventions.
template <class T>
Verdict checkCase(const NamedProperty<T>& property, const EngineUnderTest<T>& subject, const Case<T>& loaded) {
  if (!loaded.inputs) return Verdict::fail("the case gives no input values (\"values\")");
  // Before anything is evaluated: a forward would fill a tensor of the wrong size.
  if (auto disagreement = gen::shapeDisagreement(loaded.graph))
    return Verdict::fail("the loader's shapes are not the op table's (a fault in tapecheck): " + *disagreement);
  if (property.scope == Scope::runtime) return property.check(subject, loaded);  // the engine plays no part
  if (!subject.profile->supportsCarrier(Carrier<T>::name))
    return Verdict::unsupportedOp(fmt::format("(carrier {})", Carrier<T>::name));
  if (auto p = subject.profile->firstUnsupportedNode(Carrier<T>::name, loaded.graph))
    return Verdict::unsupportedOp(ops::nodeLabel(loaded.graph.nodeAt(*p).op, loaded.graph.nodeAt(*p).attrs));
  if constexpr (std::is_floating_point_v<T>)
    if (subject.exactCasesOnly)
      if (std::string reason = notExactReason(loaded); !reason.empty()) return Verdict::skip(reason);
  // The engine's own exceptions are verdicts on this case (guarded_engine.h).
  const GuardedEngine<T> guardedEngine(subject.engine);
  const EngineUnderTest<T> guardedSubject{guardedEngine, subject.policy, *subject.profile, subject.exactCasesOnly};
  try {
    if (subject.profile->conventions == loaded.graph.conventions) return property.check(guardedSubject, loaded);
    Case<T> withConventions = loaded;
    withConventions.graph.conventions = subject.profile->conventions;
    return property.check(guardedSubject, withConventions);
  } catch (const EngineFault& fault) {
    Verdict faulted = Verdict::fail(fault.what());
    faulted.engineFault = true;
    return faulted;
  } catch (const UnsupportedCase& unsupported) {
    return Verdict::unsupportedOp(unsupported.what());
  }
}

// How many cases an engine that wants plans is told about at once.
inline constexpr std::size_t kPlannedCases = 64;

// Tells an engine that wants plans what the property will ask of it on these cases, recorded on
// the reference engine.
template <class T>
void planCases(const NamedProperty<T>& property, const EngineUnderTest<T>& subject,
               const std::vector<Result<Case<T>>>& cases) {
  PlanRecorder<T> recorder(builtinEngine<T>("compiled"));  // correct, and the fastest
  EngineUnderTest<T> recording{recorder, subject.policy, *subject.profile, subject.exactCasesOnly};
  for (const auto& loaded : cases)
    if (loaded && loaded->inputs) (void)checkCase(property, recording, *loaded);
  subject.engine.plan(recorder.take());
}

inline Verdict doesNotLoad(const Error& error) { return Verdict::fail("the case does not load: " + error.message); }

template <class T>
Verdict checkLoaded(const NamedProperty<T>& property, const EngineUnderTest<T>& subject,
                    const Result<Case<T>>& loaded) {
  if (!loaded) return doesNotLoad(loaded.error());
  return checkCase(property, subject, *loaded);
}

// The failure of a case document that does not load. The documents a run judges are generated
// through the loader's own reader, so this is a disagreement of the generator and an op's rules:
// one refused at a node is cut down to that node and what it reads (gen::refusedNodeCone), its
// verdict the cut document's own; otherwise the document stays whole.
template <class T>
Counterexample unloadableFailure(const nlohmann::json& doc, const Error& error) {
  auto generatorFault = [](const Error& refusal) {
    return Verdict::fail("tapecheck's generator wrote a case that its loader refuses (one of the two is wrong): " +
                         refusal.message);
  };
  std::optional<nlohmann::json> cone = gen::refusedNodeCone<T>(doc);
  if (!cone) return Counterexample{doc, doc, 0, generatorFault(error), {}, {}};
  Result<Case<T>> again = caseFromJson<T>(*cone);  // refused: refusedNodeCone checked it
  const bool smaller = (*cone)["nodes"].size() < doc["nodes"].size() || (*cone)["inputs"].size() < doc["inputs"].size();
  return Counterexample{doc, std::move(*cone), smaller ? 1u : 0u, generatorFault(again.error()), {}, {}};
}

inline std::string differenceOf(const Verdict& verdict) {
  return verdict.differenceClass ? std::string(kDifferenceClasses[*verdict.differenceClass]) : "error";
}

// The counterexample a run saves for a failing case (shrunkFailure in properties/counterexample.hpp,
// judged by this property on this engine).
template <class T, class Same>
Counterexample shrunkFailure(const NamedProperty<T>& property, const EngineUnderTest<T>& subject,
                             const gen::CaseOptions& options, nlohmann::json doc, Case<T> loaded, Same&& same,
                             const Verdict& originalVerdict) {
  return props::shrunkFailure<T>([&](const Case<T>& c) { return checkCase(property, subject, c); }, options,
                                 std::move(doc), std::move(loaded), std::forward<Same>(same), originalVerdict);
}

// Tallies a failing case in a survey: a new kind gets its own shrunk example.
// The kind (op, where, difference) already tallied in `run`, counted once more; nullptr when it is new.
inline FailureKind* knownKind(PropertyRun& run, const std::string& op, const std::string& in, const std::string& difference) {
  for (FailureKind& kind : run.kinds)
    if (kind.op == op && kind.in == in && kind.difference == difference) {
      ++kind.cases;
      return &kind;
    }
  return nullptr;
}

template <class T>
void tallyKind(PropertyRun& run, const NamedProperty<T>& property, const EngineUnderTest<T>& subject,
               const gen::CaseOptions& options, const nlohmann::json& doc, const Case<T>& loaded,
               const Verdict& verdict) {
  std::string op = blamedOp(loaded, verdict), in = differenceIn(verdict), difference = differenceOf(verdict);
  if (knownKind(run, op, in, difference)) return;
  auto sameKind = [&](const Case<T>& c, const Verdict& v) {
    return blamedOp(c, v) == op && differenceIn(v) == in && differenceOf(v) == difference;
  };
  run.kinds.push_back({op, in, difference, 1, shrunkFailure(property, subject, options, doc, loaded, sameKind, verdict)});
}

// A case an earlier row's engine fault was shrunk to that faults on this row too, with its verdict.
template <class T>
struct EarlierFault {
  nlohmann::json doc;
  Case<T> loaded;
  Verdict verdict;
};

template <class T>
std::optional<EarlierFault<T>> earlierFaultHere(const NamedProperty<T>& property, const EngineUnderTest<T>& subject,
                                                const gen::CaseOptions& options) {
  for (nlohmann::json& doc : subject.faultedCases->newestFirst()) {
    Result<Case<T>> loaded = caseFromJson<T>(doc);  // another carrier's values may not be this one's
    if (!loaded || !loaded->inputs || !gen::meetsOptions(*loaded, options)) continue;
    Verdict verdict = checkCase(property, subject, *loaded);
    if (!verdict.holds && verdict.engineFault) return EarlierFault<T>{std::move(doc), std::move(*loaded), std::move(verdict)};
  }
  return std::nullopt;
}

// The counterexample of a failing case (shrunkFailure). When the engine faulted on it and a case
// an earlier row's fault was shrunk to faults here too, shrinking starts there (its first step):
// each step of shrinking a hang waits out a timeout, and a row would otherwise take them all again.
// What the engine faulted on is remembered for the rows after.
template <class T>
Counterexample shrunkRowFailure(const NamedProperty<T>& property, const EngineUnderTest<T>& subject,
                                const gen::CaseOptions& options, nlohmann::json doc, Case<T> loaded, Verdict verdict) {
  auto any = [](const Case<T>&, const Verdict&) { return true; };
  const bool remembers = verdict.engineFault && subject.faultedCases;
  std::optional<EarlierFault<T>> earlier;
  if (remembers) earlier = earlierFaultHere(property, subject, options);
  Counterexample failure;
  if (earlier) {
    failure = shrunkFailure(property, subject, options, earlier->doc, std::move(earlier->loaded), any, earlier->verdict);
    if (failure.shrinkerFault.empty()) {
      failure.original = std::move(doc);
      failure.shrinkSteps += 1;
      failure.startedFrom = "a case the engine faulted on in an earlier row";
    } else {
      earlier.reset();  // what went wrong is reported on the row's own case, as generated
    }
  }
  if (!earlier) failure = shrunkFailure(property, subject, options, std::move(doc), std::move(loaded), any, verdict);
  if (remembers && failure.verdict.engineFault && failure.shrinkerFault.empty())
    subject.faultedCases->remember(failure.shrunk);
  return failure;
}

template <class T>
void tallyCase(PropertyRun& run, const NamedProperty<T>& property, const EngineUnderTest<T>& subject,
               const gen::CaseOptions& options, gen::CoverageTally* coverage, bool survey, nlohmann::json doc,
               Result<Case<T>>& loaded) {
  Verdict verdict = checkLoaded(property, subject, loaded);
  // Not a case whose shapes are not the op table's: tagging evaluates it. (Asked of every case: a row
  // that skips a case holds without checkCase having looked at its shapes; mutant 64 showed it.)
  if (loaded && loaded->inputs && coverage && !gen::shapeDisagreement(loaded->graph)) coverage->add(gen::coverageTags(*loaded));
  ++run.cases;
  if (!verdict.skipped.empty()) ++run.skipped, ++run.skipReasons[verdict.skipped];
  if (!verdict.unsupported.empty()) ++run.unsupported, ++run.unsupportedOps[verdict.unsupported];
  for (const auto& [name, measure] : verdict.measures) run.measures[name].widen(measure);
  if (verdict.underDeviation > 0) ++run.underDeviation;
  if (verdict.holds) return;
  ++run.failed;
  if (doc.is_null() && loaded) doc = caseToJson(*loaded);  // a case sourced loaded: its document, now it is needed
  if (!loaded || !loaded->inputs) {  // nothing the shrinker can take
    Counterexample failure =
        loaded ? Counterexample{doc, doc, 0, std::move(verdict), {}, {}} : unloadableFailure<T>(doc, loaded.error());
    if (!run.failure) run.failure = failure;
    if (survey && !knownKind(run, "-", "", "error")) run.kinds.push_back({"-", "", "error", 1, std::move(failure)});
    return;
  }
  if (survey) {
    tallyKind(run, property, subject, options, doc, *loaded, verdict);
    if (!run.failure) run.failure = run.kinds.back().example;
    return;
  }
  // The row ends with this failure: the rest of its plan is not needed (an engine in another process
  // is told, and need not run it, nor hang on it again while the failure is shrunk).
  if (subject.engine.wantsPlans()) subject.engine.plan({});
  run.failure = shrunkRowFailure(property, subject, options, std::move(doc), std::move(*loaded), std::move(verdict));
}

}  // namespace detail

template <class T>
std::string blamedOp(const Case<T>& c, const Verdict& verdict) {
  if (verdict.differences.empty()) return "-";
  const Graph<T>& graph = c.graph;
  auto labelAt = [&](std::size_t p) {
    if (p >= graph.positionCount()) return std::string("-");  // a pack longer than the graph
    return p < graph.inputs.size() ? std::string("input") : ops::nodeLabel(graph.nodeAt(p).op, graph.nodeAt(p).attrs);
  };
  if (verdict.quantity == Quantity::forwardValues) return labelAt(verdict.differences.front().position);
  // A gradient differs first (in reverse order) at its highest position: blame the first node
  // the reverse pass runs that feeds it, the highest one.
  const std::size_t p = verdict.differences.back().position;
  for (std::size_t k = graph.positionCount(); k-- > std::max(p + 1, graph.inputs.size());) {
    const Node<T>& node = graph.nodeAt(k);
    if (ops::isDense(node.op) || std::find(node.args.begin(), node.args.end(), p) != node.args.end()) return labelAt(k);
  }
  return "seed";
}

template <class T>
Verdict checkDocument(const NamedProperty<T>& property, const Subject<T>& subject, const nlohmann::json& doc) {
  return detail::checkLoaded(property, subject, caseFromJson<T>(doc));
}

template <class T>
Verdict checkLoadedCase(const NamedProperty<T>& property, const Subject<T>& subject, const Case<T>& loaded) {
  return detail::checkCase(property, subject, loaded);
}

template <class T>
PropertyRun runPropertyOn(const NamedProperty<T>& property, const Subject<T>& subject, std::size_t cases,
                          const std::type_identity_t<CaseSource<T>>& source, gen::CoverageTally* coverage, bool survey,
                          const gen::CaseOptions& options) {
  PropertyRun run;
  auto start = std::chrono::steady_clock::now();
  const bool planned = property.scope == Scope::engine && subject.engine.wantsPlans();
  const std::size_t chunk = planned ? detail::kPlannedCases : 1;
  for (std::size_t first = 0; first < cases && (survey || !run.failure); first += chunk) {
    std::vector<nlohmann::json> docs;
    std::vector<Result<Case<T>>> loadedCases;
    for (std::size_t i = first; i < std::min(cases, first + chunk); ++i) {
      SourcedCase<T> sourced = source(i);
      docs.push_back(std::move(sourced.doc));
      if (sourced.loaded) loadedCases.push_back(std::move(*sourced.loaded));
      else loadedCases.push_back(caseFromJson<T>(docs.back()));
      // The conventions checkCase would put on a copy, put on the case once: the plan and the run
      // then pass the engine the same objects.
      if (planned && loadedCases.back()) loadedCases.back()->graph.conventions = subject.profile->conventions;
    }
    if (planned) detail::planCases(property, subject, loadedCases);
    for (std::size_t k = 0; k < docs.size() && (survey || !run.failure); ++k)
      detail::tallyCase(run, property, subject, options, coverage, survey, std::move(docs[k]), loadedCases[k]);
  }
  if (planned) subject.engine.plan({});  // what the last chunk did not use
  run.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return run;
}

template <class T>
PropertyRun runProperty(const NamedProperty<T>& property, const Subject<T>& subject, const RunSettings& settings,
                        gen::CoverageTally* coverage) {
  const int maxSize = std::clamp(settings.maxSize, 0, 100);
  gen::CaseOptions options = caseOptionsFor<T>(*subject.profile, settings.domain);
  options.signedZeros = property.drawsSignedZeros;
  return runPropertyOn(property, subject, settings.cases, [&](std::size_t i) {
    int size = static_cast<int>(i * static_cast<std::size_t>(maxSize) / std::max<std::size_t>(settings.cases, 1));
    gen::GeneratedCase<T> generated =
        gen::generateCase<T>(caseSeed(settings.seed, property.name, Carrier<T>::name, i), size, options);
    return SourcedCase<T>{std::move(generated.doc), std::move(generated.loaded)};
  }, coverage, settings.survey, options);
}

}  // namespace tc::props

// The library's copies of the harness's and the core's templates, declared extern.
#include "properties/runner/instantiate/harness_instances.h"
