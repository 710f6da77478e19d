#pragma once
// The work budget of the commands that run a user's file (grad, show, check, replay): what each
// command's passes are, the options that raise the budget, and the refusal that names the node
// (core/graph/cost.h estimates; docs/budget.md).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "core/graph/cost.h"
#include "core/graph/within_budget.h"
#include "core/io/case_file.h"
#include "core/io/document_format.h"
#include "generators/choices.h"
#include "properties/oracles/determinism.h"
#include "properties/oracles/literal_reader.h"

namespace tc::cli {

//! --max-work and --max-memory, in operations and MiB.
struct BudgetOptions {
  double maxWork = Budget{}.work;
  double maxMemoryMib = Budget{}.memory / (1024.0 * 1024);

  Budget budget() const { return Budget{maxWork, maxMemoryMib * 1024.0 * 1024}; }
};

//! How a refusal says to raise the limit it passed.
inline constexpr std::string_view kRaiseWork = "; raise it with --max-work";
inline constexpr std::string_view kRaiseMemory = "; raise it with --max-memory (MiB)";

//! The bound on reading a file's JSON: the memory budget (the document is built before the
//! estimate of the case can run).
inline MemoryBound documentBound(const BudgetOptions& options) {
  return MemoryBound{options.budget().memory, std::string(kRaiseMemory)};
}

//! The passes of each command over a graph, measured on long chains (the dense order dominates),
//! matrix products (multiply-adds dominate) and broadcasts to millions of elements (bookkeeping
//! dominates). Printing a value takes about 200 ns (an interval 700). A property run on one draw makes about 3.5
//! forward and 3.5 reverse passes through the engines and oracles, 2.5 in the literal dense order
//! (the reference and the tape), and spends about 50 ns per element drawing, copying and comparing
//! (ten times more for tensors beyond the caches, core/graph/cost.hpp; the twelve properties of
//! `check` took 40, 40 and 30 passes per draw).
//!
//! `grad`: a forward and a reverse pass (in the dense order on the reference and the tape), and
//! three values per element printed; as JSON they are first built as a document of strings
//! (measured: about 210 bytes per element, as much as eight printed values, in memory and time).
inline PassCounts gradPasses(bool denseOrder, bool json) {
  return PassCounts{.forward = 1, .backward = 1, .dense = denseOrder ? 1.0 : 0.0, .copies = 4,
                    .printedValues = json ? 8.0 : 3.0};
}
inline PassCounts propertyPasses(double propertyRuns, double printedValues) {
  PassCounts passes{3.5 * propertyRuns, 3.5 * propertyRuns, 2.5 * propertyRuns, 8, printedValues,
                    50 * propertyRuns, {}, {}};
  passes.propertyRuns = propertyRuns;
  return passes;
}
//! `show` evaluates the case and lists its values and seeds (linear), and re-checks a saved
//! failure's property when the file holds one.
inline PassCounts showPasses(bool rechecksAFailure) {
  if (rechecksAFailure) return propertyPasses(1, 3);
  return PassCounts{.forward = 1, .backward = 0, .dense = 0, .copies = 3, .printedValues = 2};
}
//! `passes` with the accuracy oracle run `ownRuns` times on the case's own values and `drawnRuns`
//! times on random draws of `domain` (the exact domain's values are small dyadic numbers).
inline PassCounts withAccuracyRuns(PassCounts passes, double ownRuns, double drawnRuns, gen::Domain domain) {
  passes.ownValues = EnclosurePasses{ownRuns, 1, false};
  passes.drawnValues = EnclosurePasses{drawnRuns, gen::finiteShareOfDraws(domain), domain == gen::Domain::exact,
                                       gen::kFiniteDrawPercent / 100.0};
  return passes;
}

//! Packs of values (one per element of every position) that one run of `property` sends to an engine
//! in another process or reads from its answers, on a graph of `positions` positions (measured through
//! `tapecheck serve`): about two (the inputs or seeds sent, the context or gradients answered); the
//! accuracy oracle about eight; determinism its two compiles, three dense passes and a single-output
//! pass at each of up to props::kInterleavedPasses positions.
inline double exchangedPacks(std::string_view property, std::size_t positions) {
  if (property == "determinism") return 4 + static_cast<double>(std::min(positions, props::kInterleavedPasses));
  if (property == "accuracy") return 8;
  return 2;
}

//! Times one run of `property` writes the case's graph and data as a case file and reads it back, on a
//! graph whose nodes read `readLists` index lists: index_bounds three for each list (its first entry at
//! 0, rows − 1 and rows), four where no list is read (a reader appended, then those three);
//! file_round_trip once.
inline double documentRoundTrips(std::string_view property, std::size_t readLists) {
  if (property == "index_bounds") return readLists == 0 ? 4 : 3 * static_cast<double>(readLists);
  if (property == "file_round_trip") return 1;
  return 0;
}

//! literal_reader's reading (docs/budget.md): it writes each distinct value of a case in
//! about ten forms and reads each back three ways. On a case's own values, about 15 µs a distinct
//! full-precision double (measured: 3.75 s for the 263,000 distinct weights of a width-256 MLP file,
//! whose exact decimals run to 60 digits); on a draw, whose values repeat, about 150 ns an element
//! of its inputs and seeds (30 ms a draw of that file).
inline constexpr double kReadOwnValue = 15000, kReadDrawnElement = 150;

//! The distinct values of a case that literal_reader reads, once each (props::distinctValuesOf: its
//! inputs', seeds', data's and constants', by bit pattern on IEEE carriers; the seeds once the loader
//! has read them, core/io/case_file.h); none on a carrier it does not run on.
template <class T>
double distinctLeafValues(const Case<T>& c) {
  if constexpr (props::readsLiterals<T>) return static_cast<double>(props::distinctValuesOf(c).size());
  else return 0;
}

//! The work of literal_reader's `ownRuns` runs on a case's own values, `ownDistinct` of them
//! (distinctLeafValues), and `drawnRuns` runs on draws of its graph.
template <class T>
double literalReaderWork(const Graph<T>& graph, double ownDistinct, double ownRuns, double drawnRuns) {
  double drawnElements = 0;  // the inputs' values, and a seed per element of every position
  for (std::size_t p = 0; p < graph.positionCount(); ++p)
    drawnElements += static_cast<double>(elementCount(graph.shapeAt(p))) * (graph.isInput(p) ? 2 : 1);
  return ownRuns * ownDistinct * kReadOwnValue + drawnRuns * drawnElements * kReadDrawnElement;
}

//! Whether the built-in engine `engine` runs its reverse passes in the specification's literal dense
//! order (reference, tape): quadratic in the positions, where the compiled engine's are linear.
inline bool runsTheDenseOrder(std::string_view engine) { return engine == "reference" || engine == "tape"; }

//! Reverse passes that one run of an engine-scoped `property` asks of the engine under test, on a graph
//! of `positions` positions: one (its dense pass), determinism three dense passes and a single-output
//! pass at each of up to props::kInterleavedPasses + 2 positions (measured: check on a 3,000-node chain
//! took 3.3 times as long with --engine reference as with compiled).
inline double reversePassesAsked(std::string_view property, std::size_t positions) {
  if (property == "determinism") return 5 + static_cast<double>(std::min(positions, props::kInterleavedPasses));
  return 1;
}

//! A loader gate (core/io/case_file.h) that refuses a case whose estimated cost passes the budget,
//! naming the node and the option that raises the limit it passed; `more` adds another way to ask
//! for less (fewer --cases), `workShare` how the work budget was shared. The case is judged before
//! its seed pack is built, and again with the seeds the file gives.
template <class T>
CaseGate<T> budgetGate(const PassCounts& passes, const BudgetOptions& options, const std::string& more = "",
                       const std::string& workShare = "") {
  return [passes, budget = options.budget(), raiseWork = workShare + std::string(kRaiseWork) + more,
          raiseMemory = std::string(kRaiseMemory) + more](const Case<T>& c) -> Result<void> {
    return withinBudget(c.graph, c.inputs ? &*c.inputs : nullptr, c.data, passes, budget, raiseWork, raiseMemory);
  };
}

}  // namespace tc::cli
