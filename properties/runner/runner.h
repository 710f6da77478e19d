#pragma once
// Running one property on generated cases: the loop behind `tapecheck run` and the tests that
// plug a faulty engine in. Deterministic in the run seed.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "generators/coverage.h"
#include "generators/generate.h"
#include "properties/counterexample.h"
#include "properties/runner/all.h"

namespace tc::props {

//! Where a failing verdict's difference is, as a survey's kinds say: "forward" values or "backward"
//! gradients (one op's forward and backward differences are two kinds); "" for an error, which has
//! no class of difference.
inline std::string differenceIn(const Verdict& verdict) {
  if (!verdict.differenceClass) return "";
  return verdict.quantity == Quantity::gradients ? "backward" : "forward";
}

//! One kind of failure found by a survey: the op it is blamed on (a forward difference on the op
//! of its first differing node; a gradient difference on the highest node feeding its last
//! differing position, or "seed" when none does; "-" when nothing was compared), where the difference
//! is (differenceIn), the class of difference (kDifferenceClasses, or
//! "error" when no values were compared), how many cases failed this way, and the first of them
//! shrunk while it keeps failing the same way.
struct FailureKind {
  std::string op;
  std::string in;  //!< where the difference is: "forward" values or "backward" gradients; "" for an error
  std::string difference;
  std::size_t cases = 0;
  Counterexample example;
  //! The op as a survey names it: "sigmoid" for its forward values, "∂sigmoid" for gradients
  //! ("seed", a gradient difference no node feeds, stays as it is).
  std::string label() const { return in == "backward" && op != "seed" ? "∂" + op : op; }
};

//! How a property fared on one carrier: cases run; cases it did not apply to (by reason); cases
//! using an op the engine's profile does not support (by op); cases that failed; time; the first
//! failure shrunk (a run stops there unless it is a survey); in a survey every kind of failure;
//! and the largest of each measure the verdicts reported (Verdict::measures).
struct PropertyRun {
  std::size_t cases = 0, skipped = 0, unsupported = 0, failed = 0;
  std::size_t underDeviation = 0;  //!< cases with a value judged under a declared deviation (Verdict::underDeviation)
  std::map<std::string, std::size_t> skipReasons, unsupportedOps;
  std::map<std::string, Measure> measures;
  double ms = 0;
  std::optional<Counterexample> failure;
  std::vector<FailureKind> kinds;

  //! The cases in which the property really compared something.
  std::size_t compared() const { return cases - skipped - unsupported; }
  //! Why a run without a counterexample still fails because it compared nothing; empty otherwise.
  std::string nothingCompared() const;
  //! Why some cases were not compared when others were: "3 of 11 cases not compared (3 skipped:
  //! ...)"; empty when every case was compared or none was (nothingCompared says why).
  std::string partlyCompared() const;
  bool passed() const { return failed == 0 && nothingCompared().empty(); }
  //! Why the run did not pass, for a message: the first failure's reason and shrunk case, else
  //! why nothing was compared; empty when it passed.
  std::string whyNotPassed() const;
  //! Adds a later run of the same property on the same carrier (another seed): its counts and
  //! time, the worse of each measure, and its counterexample when this run has none. Not for a
  //! survey's kinds, which are tallied per run.
  void absorb(const PropertyRun& later);
};

//! The seed of case `index` of a property on a carrier, in a run with `runSeed`.
std::uint64_t caseSeed(std::uint64_t runSeed, std::string_view property, std::string_view carrier, std::size_t index);

//! How many generated cases a property runs on, from which run seed, and how large they grow:
//! case i of n has size i * maxSize / n (0 to 100 scales the number of nodes). A survey does not
//! stop at the first failure; it tallies every failure by kind.
struct RunSettings {
  std::size_t cases = 100;
  std::uint64_t seed = 1;
  int maxSize = 100;
  bool survey = false;
  gen::Domain domain = gen::Domain::general;
};

//! The options cases on carrier T are generated with in `domain` for an engine with `profile`: its
//! ops, and no kinks when it does not declare its kink conventions.
template <class T>
gen::CaseOptions caseOptionsFor(const EngineProfile& profile, gen::Domain domain) {
  return {profile.opsOn(Carrier<T>::name), domain, !profile.kinkConventionsDeclared};
}

//! Case `index` of a run: its document, and the case it loads as when the source has it already
//! (then `doc` may be null: it is written from the case only if the case fails, to shrink and
//! save it). Generated cases come loaded from the document in memory; `check` draws values for a
//! large graph straight into tensors, without writing and reading a document per draw.
template <class T>
struct SourcedCase {
  nlohmann::json doc;
  std::optional<Result<Case<T>>> loaded;  //!< nullopt: load `doc`
};

//! Where a run's cases come from.
template <class T>
using CaseSource = std::function<SourcedCase<T>(std::size_t index)>;

//! An engine under test, spelled so that a plain Engine<T> converts to it at the calls below.
template <class T>
using Subject = std::type_identity_t<EngineUnderTest<T>>;

//! The verdict on a case document; a document that does not load fails with the loader's message,
//! a case with an op the subject's profile does not support is `unsupported`.
template <class T>
Verdict checkDocument(const NamedProperty<T>& property, const Subject<T>& subject, const nlohmann::json& doc);

//! The verdict on a case already loaded (a file's, read once), as checkDocument's.
template <class T>
Verdict checkLoadedCase(const NamedProperty<T>& property, const Subject<T>& subject, const Case<T>& loaded);

//! Runs `property` on `cases` documents from `source`, shrinking the first failure (in a survey:
//! the first of each kind) through cases that still meet `options` (the domain, no kinks when
//! asked). Each case's coverage tags go to `coverage` when given. A document that does not load
//! fails the run, cut down to the node the loader refuses (gen::refusedNodeCone), and a case whose
//! shapes are not the op table's (gen::shapeDisagreement) fails without being evaluated.
template <class T>
PropertyRun runPropertyOn(const NamedProperty<T>& property, const Subject<T>& subject, std::size_t cases,
                          const std::type_identity_t<CaseSource<T>>& source, gen::CoverageTally* coverage = nullptr,
                          bool survey = false,
                          const gen::CaseOptions& options = {});

//! runPropertyOn with generated cases, drawn only from the ops the subject's profile supports.
template <class T>
PropertyRun runProperty(const NamedProperty<T>& property, const Subject<T>& subject, const RunSettings& settings,
                        gen::CoverageTally* coverage = nullptr);

//! The op a failing verdict on `c` is blamed on (see FailureKind).
template <class T>
std::string blamedOp(const Case<T>& c, const Verdict& verdict);

}  // namespace tc::props
