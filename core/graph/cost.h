#pragma once
// What a command's passes over a graph will cost, estimated before anything runs from the graph's
// shapes and, on growing carriers, from how large its numbers can become; and the budget that a
// command refuses to exceed (docs/budget.md). A small file can describe a huge amount of
// work (a broadcast to millions of elements, a chain of squares): it is refused with the node at
// which the estimate passes the budget, instead of running for minutes or exhausting memory.
#include <cstddef>
#include <limits>
#include <optional>
#include <string>

#include "core/graph/graph.h"

namespace tc {

//! Runs of the accuracy oracle (docs/semantics.md §2.6) on one kind of values: each encloses every
//! node's forward and terms on MPFI intervals and judges every element, hundreds of times the cost
//! of the IEEE kernels, except where a fold of products runs in double (every operation exact there).
struct EnclosurePasses {
  double count = 0;          //!< runs (one per draw judged)
  double finiteShare = 1;    //!< the chance that one element of a draw is finite: a node is judged whole
                             //!< only where every element of its arguments is (a draw of large tensors
                             //!< rarely is), a pointwise op's forward on the elements whose arguments are finite
  bool shortValues = false;  //!< the draws are small dyadic values, whose folds run in double; for the
                             //!< case's own values this is read from the values
  double allFinite = 0;      //!< the share of runs whose values are all finite (judged whole)
};

//! How many passes of each kind a command makes over a graph.
struct PassCounts {
  double forward = 1;        //!< evaluations: every node's forward
  double backward = 1;       //!< reverse passes that run every node's terms
  double dense = 0;          //!< reverse passes in the literal dense order (the reference and the tape),
                             //!< where every node visits every earlier position
  double copies = 4;         //!< values held at once per element of every position (context, seeds,
                             //!< gradients, temporaries)
  double printedValues = 0;  //!< values printed per element of every position (listings)
  double perElement = 0;     //!< nanoseconds of bookkeeping per element of every position (drawing
                             //!< values, comparing results) while it fits in the caches; printing
                             //!< is counted by printedValues
  EnclosurePasses ownValues{};    //!< the accuracy oracle on the case's own values (IEEE carriers)
  EnclosurePasses drawnValues{};  //!< the accuracy oracle on random draws (IEEE carriers)
  double exactReferenceRuns = 0;  //!< runs of exact_reference (IEEE carriers, exact domain): the reference on
                                  //!< exact rationals, a forward and a reverse pass in the dense order
  double exactnessChecks = 0;     //!< runs of the exactness checker on a user's graph (IEEE carriers, exact
                                  //!< domain) before an engine is judged, each counted as 1.5 runs of
                                  //!< exact_reference's reference: 450 ns a forward operation, against 180
                                  //!< (64-element elementwise ops) to 430 (a 16-wide MLP) measured
  double exchangedValues = 0;     //!< values per element of every position sent to an engine in another
                                  //!< process or read from its answers, each formatted and parsed as text
                                  //!< on both sides of the pipe
  double fixedWork = 0;           //!< work of the whole case known ahead of its positions (literal_reader
                                  //!< reading the case's distinct values), counted from its first node on
  double propertyRuns = 0;        //!< runs of properties: each handles every position as a tensor of its own
                                  //!< besides its elements, and copies the case's data
  double documentRoundTrips = 0;  //!< times the case's graph and data are written as a case file and read
                                  //!< back: every position's entry, every data value and index entry
};

//! Limits on a command's estimated cost. The defaults keep a command on any file of under 1 MB
//! within about 10 s and 1 GiB on the project's 2-core machines; a user who means more raises them.
struct Budget {
  double work = 1e10;                    //!< weighted elementary operations, about nanoseconds
  double memory = 1024.0 * 1024 * 1024;  //!< bytes
};

//! A limit that the estimate passed: where the running total first passed it, by how much, and
//! the whole case's estimate of that limit (what it must be raised to; the other limit may then
//! be passed too).
struct BudgetExcess {
  enum class Limit { work, memory, bits };
  Limit limit;
  std::size_t position;
  double estimate;  //!< operations, bytes or bits at `position`
  double allowed;
  double whole = estimate;  //!< work or memory of the whole case; bits: `estimate`
};

//! Estimates `passes` over the case position by position, in creation order, and returns where
//! the values of a growing carrier could pass kMaxExactBits (a ceiling no option raises, so it is
//! named first wherever it is), else the first position where the running total of work or
//! memory passes `budget`; nothing when the whole case fits. `inputs` is
//! null for a graph-only file (its values are then taken to be small).
template <class T>
std::optional<BudgetExcess> exceedsBudget(const Graph<T>& graph, const Pack<T>* inputs, const Data<T>& data,
                                          const PassCounts& passes, const Budget& budget);

//! The estimated work of `passes` over the case, in the budget's operations (what exceedsBudget
//! holds against Budget::work): the whole case's total, found as the excess over a budget of 0;
//! 0 where a value could pass the exact carriers' ceiling (no estimate holds there).
template <class T>
double estimatedWork(const Graph<T>& graph, const Pack<T>* inputs, const Data<T>& data, const PassCounts& passes) {
  const auto excess = exceedsBudget(graph, inputs, data, passes, Budget{0, std::numeric_limits<double>::infinity()});
  return excess && excess->limit == BudgetExcess::Limit::work ? excess->whole : 0;
}

//! The excess for people, naming the node: "node 3 (matmul): the estimated work passes the budget
//! of 1e+10 operations here and reaches 3.2e+10 in all".
template <class T>
std::string describeExcess(const Graph<T>& graph, const BudgetExcess& excess);

}  // namespace tc
