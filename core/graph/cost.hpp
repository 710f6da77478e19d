#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/graph/cost.h"
#include "core/graph/node_program.hpp"
#include "core/ops/kernels.h"
#include "core/ops/library.hpp"

namespace tc {
namespace detail {

// An operation on MPFI intervals of 257-bit endpoints (a multiply-add of a 128 × 128 product on
// them takes about 400 ns).
constexpr double kEnclosedOperation = 400;
// A product added to an exact sum (ExactProductSum, the interval carrier's folds of points
// holding doubles): 3.3 to 5.2 ns measured on a 512 × 512 product of drawn values.
constexpr double kExactFoldProduct = 5;
// The accuracy oracle's judging of one element (its intervals made, the engine's value converted
// and held to its budget): about 3 µs on the oracle's first run, which allocates its intervals and
// touches their memory for the first time, and 0.3 µs on each run after it, which reuses that
// memory (measured on a 512 × 512 product and on a width-256 MLP's file: 2.6 and 0.83 s first);
// counted as 4 and 0.4 µs.
constexpr double kJudgedElement = 4000;
constexpr double kJudgedAgain = 400;
// The bytes of one MPFI interval of 257-bit endpoints: its structure and its two endpoints' limbs,
// each allocated apart (measured: `grad --carrier interval` holds about 980 bytes per element of
// every position, in four copies and three printed values). The accuracy oracle holds about four
// per element of every position (values, terms, error bounds, gradients: 840 bytes measured on
// a [256, 1000] softmax).
constexpr double kIntervalBytes = 230;
constexpr double kEnclosuresPerElement = 4;

// About the nanoseconds of one elementary operation on values of `bits` bits. Exact rationals
// pay GMP's calls and, as numbers grow, multiplication and gcd somewhat faster than linear in the
// limbs; IEEE transcendental functions cost tens of operations.
inline double exactOperationCost(double bits) { return 100 + 0.5 * std::pow(std::max(1.0, bits / 64), 1.6); }

// A value of the exact domain's draws on exact rationals, in bits per degree in the leaves (the
// draws are multiples of 2^-8 below 2^8).
constexpr double kExactDomainLeafBits = 16;

// A carrier of intervals, whose values' binary exponents bound their magnitudes.
template <class T>
concept IntervalCarrier = requires(const T& x) { Carrier<T>::exponentMagnitude(x); };

// About the nanoseconds of one elementary operation on T's values of `bits` bits, element by
// element.
template <class T>
double operationCost(double bits, bool transcendental) {
  if constexpr (GrowingCarrier<T>) {
    return exactOperationCost(bits);
  } else if constexpr (std::is_floating_point_v<T>) {
    return transcendental ? 20 : kernels::kIeeeOperationNs;  // the kernels run in vector lanes
  } else if constexpr (IntervalCarrier<T>) {
    return kEnclosedOperation;
  } else {
    return 5;  // a residue: a multiplication and a reduction
  }
}

// About the nanoseconds of one operation of a node's forward and of its terms on T: on IEEE
// carriers the op's own (a matrix product folds in the kernels' tiles, several times faster an
// operation), except a libm call's; elsewhere one elementary operation each.
template <class T>
kernels::IeeeOperationNs nodeOperationNs(OpKind op, const ShapeCall<T>& call, double bits) {
  const bool transcendental = ops::isTranscendental(op);
  if constexpr (std::is_floating_point_v<T>)
    if (!transcendental) return ops::ieeeOperationNs(op, call, sizeof(T));
  const double each = operationCost<T>(bits, transcendental);
  return {each, each};
}

// One operation over a forward and a reverse pass, which forms two terms' operations per forward one.
inline double averageOverAPass(const kernels::IeeeOperationNs& cost) { return (cost.forward + 2 * cost.terms) / 3; }

// Bytes of one value held in memory, and of one value printed.
template <class T>
double bytesHeld(double bits) {
  if constexpr (GrowingCarrier<T>) return 80 + bits / 8;  // GMP's two integers, their limbs and headers
  else if constexpr (IntervalCarrier<T>) return kIntervalBytes;
  else return sizeof(T);
}
template <class T>
double bytesPrinted(double bits) {
  if constexpr (GrowingCarrier<T>) return 8 + bits * 0.31;  // decimal digits of numerator and denominator
  else if constexpr (IntervalCarrier<T>) return 48;  // [lo, hi]
  else return 24;
}

// Elements of a tensor beyond which bookkeeping runs at memory speed (2 MiB of doubles).
constexpr double kCachedElements = 1 << 18;

// Printing one value: about 50 ns a double and 90 a small rational, counted as 200; an interval
// "[lo, hi]" with each endpoint rounded outward to 17 significant digits (a point whose exact
// decimal is short prints that alone), about 700 (measured: `grad` of a [512, 512] negation
// listing 1.6 million values).
template <class T>
double printCost() {
  if constexpr (IntervalCarrier<T>) return 700;
  else return 200;
}

// One value sent to an engine in another process or read back, formatted and parsed on both sides
// of the pipe by two processes sharing the machine: measured through `tapecheck serve` on MLPs of
// width 64 and 256, about 400 ns a double, 2 µs a rational and 5 µs an interval (its endpoints'
// exact text).
template <class T>
double exchangeCost() {
  if constexpr (GrowingCarrier<T>) return 2000;
  else if constexpr (IntervalCarrier<T>) return 5000;
  else return 400;
}

// A visit of the literal dense order to one earlier position, besides its elements' additions.
constexpr double kDenseVisit = 5;

// A property run's handling of one position besides its elements (a tensor's shape and storage made,
// copied, compared): about 350 ns, and a few values' operations more on a carrier of costly values
// (measured: `check --cases 10` on 8,000 scalar inputs, 0.34 µs a position and run on double, 0.7 on
// rationals, 1.4 on intervals).
template <class T>
double positionCost(double bits) {
  return 350 + 2.5 * operationCost<T>(bits, false);
}

// A position's entry in a case file written and read back (`{"shape": []}`, a node's op, arguments
// and shape): about 700 ns, the same on every carrier (measured as above: index_bounds writes and
// reads 8,000 input entries in 5.6 ms on double, 6.1 on intervals).
constexpr double kDocumentEntry = 700;

// A value written to a case file and read back: its text formatted, held as a JSON string and read
// by the carrier's literal reader. Measured on 65,536 data values "1": about 210 ns on double, 0.9 µs
// on rationals, 1.2 µs on residues and intervals (the reader's exact rational reduced or rounded).
template <class T>
double documentValueCost() {
  if constexpr (std::is_floating_point_v<T>) return 210;
  else return 1200;
}

// An index entry written to a case file and read back: about 180 ns, on every carrier (measured:
// index_bounds on a list of 65,536 entries, whose document it copies for each entry it sets).
constexpr double kDocumentIndexEntry = 180;

// The bytes of a value or index entry held as a case file's JSON while it is written and read back:
// its JSON value, its string and its text (measured 300).
constexpr double kDocumentBytes = 300;

// A data value lifted to an interval for the accuracy oracle: about 150 ns (measured on 65,536
// data values).
constexpr double kLiftedValue = 150;

// A degree large enough that any leaf of a growing carrier exceeds the ceiling at it; degrees
// are held below it so that summing them cannot overflow.
constexpr int kDegreeCap = 1 << 24;

// Calls f on every leaf value of a case: its inputs' (when given), its data's, and its constants'
// (a const's values, scale's c, clamp's bounds).
template <class T, class F>
void forEachLeafValue(const Graph<T>& graph, const Pack<T>* inputs, const Data<T>& data, F&& f) {
  auto each = [&](const Tensor<T>& t) {
    for (const T& x : t.values) f(x);
  };
  if (inputs)
    for (const Tensor<T>& t : *inputs) each(t);
  for (const auto& [name, t] : data) each(t);
  for (const Node<T>& node : graph.nodes) ops::forEachAttributeValue(node.op, node.attrs, f);
}

// x as a finite double: an IEEE value that is finite, or a point holding one.
template <class T>
std::optional<double> finiteDouble(const T& x) {
  std::optional<double> d;
  if constexpr (std::is_floating_point_v<T>) d = static_cast<double>(x);
  else d = Carrier<T>::exactDouble(x);
  if (d && !std::isfinite(*d)) d.reset();
  return d;
}

// The work and memory of the case's data, which every property run copies, a document round trip
// writes and reads back (its index lists too) and the accuracy oracle lifts to intervals; counted
// from the first node on, like PassCounts::fixedWork.
template <class T>
void addDataCost(const Graph<T>& graph, const Data<T>& data, const PassCounts& passes, double leafBits, double& work,
                 double& memory) {
  double values = 0, indexEntries = 0;
  for (const auto& [name, t] : data) values += static_cast<double>(t.values.size());
  for (const auto& [name, list] : graph.schema.indices) indexEntries += static_cast<double>(list.size());
  const double valueCost = operationCost<T>(leafBits, false);
  const double valueFactor = GrowingCarrier<T> ? valueCost / 100 : 1;
  work += values * (passes.propertyRuns * valueCost + passes.documentRoundTrips * documentValueCost<T>() * valueFactor);
  work += indexEntries * passes.documentRoundTrips * kDocumentIndexEntry;
  if constexpr (std::is_floating_point_v<T>)
    work += values * (passes.ownValues.count + passes.drawnValues.count) * kLiftedValue;
  // Held once by the case, and once more by the draw a property runs on (one at a time).
  const double copies = passes.propertyRuns > 0 ? 2 : 1;
  memory += copies * (values * bytesHeld<T>(leafBits) + indexEntries * sizeof(std::size_t));
  if (passes.documentRoundTrips > 0) memory += (values + indexEntries) * kDocumentBytes;
}

}  // namespace detail

template <class T>
std::optional<BudgetExcess> exceedsBudget(const Graph<T>& graph, const Pack<T>* inputs, const Data<T>& data,
                                          const PassCounts& passes, const Budget& budget) {
  using Limit = BudgetExcess::Limit;
  // Sizes on a growing carrier: every leaf as large as the largest, a node bounded by its degree
  // in the leaves (a product's size is at most the sum of its factors').
  // Constants count as leaves: a const's values, scale's c, clamp's bounds.
  // A graph-only file's inputs are taken to be 64-bit values.
  double leafBits = 64;
  if constexpr (GrowingCarrier<T>) {
    if (inputs) {
      leafBits = 1;
      for (const Tensor<T>& t : *inputs) leafBits = std::max(leafBits, static_cast<double>(largestBits(t)));
    }
    for (const auto& [name, t] : data) leafBits = std::max(leafBits, static_cast<double>(largestBits(t)));
    for (const Node<T>& node : graph.nodes)
      leafBits = std::max(leafBits, static_cast<double>(largestAttributeBits(node.op, node.attrs)));
  }
  // On the interval carrier the same bound on magnitudes: a node's binary exponent is at most its
  // degree times the leaves' largest (a product's exponent is at most the sum of its factors').
  double leafExponent = 64;
  if constexpr (detail::IntervalCarrier<T>) {
    if (inputs) leafExponent = 1;
    detail::forEachLeafValue(graph, inputs, data, [&](const T& x) {
      leafExponent = std::max(leafExponent, static_cast<double>(Carrier<T>::exponentMagnitude(x)));
    });
  }
  // On IEEE carriers, the range of the case's own finite leaf values: where it is narrow, the
  // accuracy oracle's folds of products of leaves run in double (kernels::foldIsExactInDouble).
  // The same on a carrier holding exact sums (intervals), for its own folds of inputs that are
  // points holding doubles (kernels::foldProductsOfDoubles).
  kernels::DyadicRange ownLeaves;
  const bool ownValuesKnown = inputs != nullptr;
  std::vector<bool> inputHoldsDoubles(graph.inputs.size(), false);
  if constexpr (std::is_floating_point_v<T> || kernels::HoldsExactSums<T>) {
    detail::forEachLeafValue(graph, inputs, data, [&](const T& x) {
      if (const std::optional<double> d = detail::finiteDouble(x)) ownLeaves.add(*d);
    });
    if constexpr (kernels::HoldsExactSums<T>)
      for (std::size_t i = 0; inputs && i < inputs->size(); ++i)
        inputHoldsDoubles[i] =
            std::ranges::all_of((*inputs)[i].values, [](const T& x) { return detail::finiteDouble(x).has_value(); });
  }
  // The small dyadic values of a draw that `shortValues` promises: within [2^-8, 2^8].
  kernels::DyadicRange drawnLeaves;
  drawnLeaves.add(0x1p-8), drawnLeaves.add(0x1p8 - 0x1p-8);
  std::vector<int> degrees(graph.positionCount(), 1);
  double work = passes.fixedWork, memory = 0;
  detail::addDataCost<T>(graph, data, passes, leafBits, work, memory);
  std::optional<BudgetExcess> first;  // where the running work or memory first passed its limit
  double earlier = 0;  // the cost of adding to every earlier position, as a node of the dense order does
  double earlierExact = 0;  // the same for exact_reference's rationals
  for (std::size_t p = 0; p < graph.positionCount(); ++p) {
    const double elements = static_cast<double>(elementCount(graph.shapeAt(p)));
    double bits = leafBits;
    if (!graph.isInput(p)) {
      const Node<T>& node = graph.nodeAt(p);
      boost::container::small_vector<int, 4> argDegrees;
      boost::container::small_vector<const Shape*, 4> argShapes;
      for (std::size_t a : node.args) {
        argDegrees.push_back(degrees[a]);
        argShapes.push_back(&graph.shapeAt(a));
      }
      // A node without arguments (a const) is a leaf.
      degrees[p] = node.args.empty() ? 1
                                     : std::min(ops::degree(node.op, std::span<const int>(argDegrees.data(), argDegrees.size())),
                                                detail::kDegreeCap);
      if constexpr (GrowingCarrier<T>) {
        bits = degrees[p] * leafBits;
        if (bits > static_cast<double>(kMaxExactBits))
          return BudgetExcess{Limit::bits, p, bits, static_cast<double>(kMaxExactBits)};
      }
      if constexpr (detail::IntervalCarrier<T>) {
        const double exponent = degrees[p] * leafExponent;
        if (exponent > static_cast<double>(kMaxIntervalExponent))
          return BudgetExcess{Limit::bits, p, exponent, static_cast<double>(kMaxIntervalExponent)};
      }
      const ShapeCall<T> call{node.attrs, {argShapes.data(), argShapes.size()}, graph.schema};
      const double operations = ops::work(node.op, call, node.shape);
      std::size_t depth = 1;  // a bound on a fold's length: the largest dimension read
      for (std::size_t a : node.args)
        for (std::size_t dim : graph.shapeAt(a)) depth = std::max(depth, dim);
      const kernels::IeeeOperationNs cost = detail::nodeOperationNs<T>(node.op, call, bits);
      double forwardCost = cost.forward, termCost = cost.terms;
      if constexpr (kernels::HoldsExactSums<T>) {
        // Folds of products of inputs holding doubles: in double where every step is exact, else as
        // exact sums; the terms' folds read a cotangent not known here, so count exact sums.
        const bool argumentsHoldDoubles = !node.args.empty() && std::ranges::all_of(node.args, [&](std::size_t a) {
          return graph.isInput(a) && inputHoldsDoubles[a];
        });
        if (argumentsHoldDoubles) {
          const double folded = ops::foldedShare(node.op, call), rest = (1 - folded) * forwardCost;
          const bool inDouble = kernels::foldIsExactInDouble(ownLeaves, ownLeaves, depth);
          const double foldCost =
              inDouble ? ops::ieeeOperationNs(node.op, call, sizeof(double)).forward : detail::kExactFoldProduct;
          forwardCost = folded * foldCost + rest;
          termCost = folded * detail::kExactFoldProduct + rest;
        }
      }
      // A reverse pass forms about two operations per forward one (a term per argument).
      work += operations * (forwardCost * passes.forward + termCost * 2 * passes.backward);
      work += passes.dense * earlier;
      work += (passes.exactReferenceRuns + 1.5 * passes.exactnessChecks) *
              (operations * detail::exactOperationCost(degrees[p] * detail::kExactDomainLeafBits) * 3 + earlierExact);
      // An opaque program builds a contribution to every earlier position on every reverse pass,
      // which the pass then adds.
      if (ops::isDense(node.op)) work += 2 * passes.backward * earlier;
      if constexpr (std::is_floating_point_v<T>) {
        // The accuracy oracle encloses the forward and the terms (three operations per forward one,
        // as a reverse pass) and judges the node's elements and its arguments' gradients. Its
        // folds of products run in double where the arguments are leaves (degree 1) in a range
        // whose products and sums are exact in double.
        double argumentElements = 0;
        bool leafArguments = true;
        for (std::size_t a : node.args) {
          argumentElements += static_cast<double>(elementCount(graph.shapeAt(a)));
          leafArguments = leafArguments && degrees[a] == 1;
        }
        // A node is judged whole where every element of its arguments is finite; else a pointwise
        // op's forward is judged on the elements whose arguments are (docs/semantics.md §3.2, docs/budget.md).
        auto enclosed = [&](const EnclosurePasses& runs, const kernels::DyadicRange& leaves, bool leavesKnown,
                            bool afterEarlierRuns) {
          if (runs.count == 0) return 0.0;
          const double judged =
              ((afterEarlierRuns ? detail::kJudgedAgain : detail::kJudgedElement) + (runs.count - 1) * detail::kJudgedAgain) /
              runs.count;
          // A transcendental function is enclosed on intervals whatever its arguments.
          const bool inDouble = leavesKnown && leafArguments && !ops::isTranscendental(node.op) &&
                                kernels::foldIsExactInDouble(leaves, leaves, depth);
          const double folded = ops::foldedShare(node.op, call);
          const double operationCost =
              inDouble ? detail::averageOverAPass(ops::ieeeOperationNs(node.op, call, sizeof(double)))
                       : folded * detail::kExactFoldProduct +
                             (1 - folded) * detail::kEnclosedOperation * ops::enclosureCost(node.op);
          const double whole = runs.allFinite + (1 - runs.allFinite) * std::pow(runs.finiteShare, argumentElements);
          const double finiteElements =
              ops::isPointwise(node.op) ? std::pow(runs.finiteShare, static_cast<double>(node.args.size())) : 0;
          return runs.count * (whole * (3 * operations * operationCost + (elements + argumentElements) * judged) +
                               (1 - whole) * finiteElements * (operations * operationCost + elements * judged));
        };
        // The case's own values are judged first; draws after them.
        work += enclosed(passes.ownValues, ownLeaves, ownValuesKnown, false);
        work += enclosed(passes.drawnValues, drawnLeaves, passes.drawnValues.shortValues, passes.ownValues.count > 0);
      }
    }
    const double elementCost = detail::operationCost<T>(bits, false);
    // Bookkeeping per element costs like copying a value: more for a large rational, and ten times
    // more once a tensor no longer fits in the caches.
    const double outOfCache = elements > detail::kCachedElements ? 10 : 1;
    const double valueFactor = GrowingCarrier<T> ? elementCost / 100 : 1;
    work += elements * (passes.perElement * outOfCache + passes.printedValues * detail::printCost<T>()) * valueFactor;
    work += elements * passes.exchangedValues * detail::exchangeCost<T>() * valueFactor;
    work += passes.propertyRuns * detail::positionCost<T>(bits) + passes.documentRoundTrips * detail::kDocumentEntry;
    earlier += detail::kDenseVisit + elements * elementCost;
    earlierExact += detail::kDenseVisit + elements * detail::exactOperationCost(degrees[p] * detail::kExactDomainLeafBits);
    memory += elements * (detail::bytesHeld<T>(bits) * passes.copies + detail::bytesPrinted<T>(bits) * passes.printedValues);
    if (passes.exchangedValues > 0) memory += elements * detail::bytesPrinted<T>(bits) * 2;  // a request's and an answer's text
    if constexpr (std::is_floating_point_v<T>)
      if (passes.ownValues.count + passes.drawnValues.count > 0)  // the accuracy oracle, one run at a time
        memory += elements * detail::kEnclosuresPerElement * detail::kIntervalBytes;
    // Judged where the work is done: at nodes (an input's bookkeeping is paid by the nodes after
    // it), and at the last position.
    if (graph.isInput(p) && p + 1 < graph.positionCount()) continue;
    if (!first && work > budget.work) first = BudgetExcess{Limit::work, p, work, budget.work};
    if (!first && memory > budget.memory) first = BudgetExcess{Limit::memory, p, memory, budget.memory};
  }
  // The whole case's estimate of that limit beside the first excess: what it must be raised to.
  if (first) first->whole = first->limit == Limit::work ? work : memory;
  return first;
}

namespace detail {

// `value` as `format` shows it with `digits` digits, or as many more as it takes to read as more
// than `limit` when it is (1.04e10 over 1e10 is "1.04e+10", not "1e+10").
inline std::string shownAbove(double value, double limit, std::string_view format, int digits) {
  std::string shown;
  for (; digits <= 17; ++digits) {
    shown = fmt::format(fmt::runtime(format), value, digits);
    if (!(value > limit) || shown != fmt::format(fmt::runtime(format), limit, digits)) break;
  }
  return shown;
}

}  // namespace detail

template <class T>
std::string describeExcess(const Graph<T>& graph, const BudgetExcess& excess) {
  const std::string where =
      graph.isInput(excess.position) ? fmt::format("input {}", excess.position) : describeNode(graph, excess.position);
  switch (excess.limit) {
    case BudgetExcess::Limit::work:
      return fmt::format("{}: the estimated work passes the budget of {:.2g} operations here and reaches {} in all",
                         where, excess.allowed, detail::shownAbove(excess.whole, excess.allowed, "{:.{}g}", 2));
    case BudgetExcess::Limit::memory: {
      constexpr double mib = 1024.0 * 1024;
      return fmt::format("{}: the estimated memory passes the budget of {:.0f} MiB here and reaches {} MiB in all",
                         where, excess.allowed / mib,
                         detail::shownAbove(excess.whole / mib, excess.allowed / mib, "{:.{}f}", 0));
    }
    case BudgetExcess::Limit::bits:
      if constexpr (detail::IntervalCarrier<T>)
        return fmt::format("{}: its values may reach about 2^±{:.0f}, past the exact carriers' ceiling on interval "
                           "endpoints of 2^±{:.0f}",
                           where, excess.estimate, excess.allowed);
      return fmt::format("{}: its values may need about {:.0f} bits, more than the exact carriers' ceiling of {:.0f} bits",
                         where, excess.estimate, excess.allowed);
  }
  return where;
}

}  // namespace tc
