#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>
#include <type_traits>

#include "core/carriers/carrier.h"
#include "core/graph/node_program.h"
#include "core/ops/kernel_geometry.h"
#include "core/ops/kernels.h"
#include "core/support/mutants.h"
#include "core/ops/library.hpp"
#include "core/spec/reference.h"
#include "generators/case_options.hpp"
#include "generators/coverage.h"

namespace tc::gen {
namespace detail {

template <class T>
bool isIeeeSpecial(const T& v) {
  if constexpr (Carrier<T>::caps.exact) {
    return false;
  } else {
    return std::isnan(v) || std::isinf(v) || (v == 0 && std::signbit(v)) || std::fpclassify(v) == FP_SUBNORMAL ||
           std::fabs(v) == T(16777216);
  }
}

// On IEEE carriers: which families of ops NaN and ±inf flow into; where −0 seeds sit (at an input,
// an intermediate node or the output, or at the last position, which no node follows; those the
// dense order settles are settlesNegativeZeroSeed's); and where +0 sits in a seeded position's seed (one
// not all +0, or the output's: an unseeded position is all +0 in every case).
template <class T>
void specialValueTags(const Case<T>& c, const std::optional<Context<T>>& context, std::set<std::string>& tags) {
  if constexpr (!Carrier<T>::caps.exact) {
    auto any = [](const Tensor<T>& t, auto test) { return std::any_of(t.values.begin(), t.values.end(), test); };
    auto isNegativeZero = [](const T& v) { return v == 0 && std::signbit(v); };
    if (context)
      for (std::size_t p = c.graph.inputs.size(); p < c.graph.positionCount(); ++p)
        for (std::size_t a : c.graph.nodeAt(p).args) {
          const std::string family(ops::family(c.graph.nodeAt(p).op));
          if (any((*context)[a], [](const T& v) { return std::isnan(v); })) tags.insert("NaN into " + family);
          if (any((*context)[a], [](const T& v) { return std::isinf(v); })) tags.insert("inf into " + family);
        }
    auto isPositiveZero = [&](const T& v) { return v == 0 && !std::signbit(v); };
    for (std::size_t p = 0; p < c.seeds.size(); ++p) {
      const std::string kind = p == c.output ? "output" : c.graph.isInput(p) ? "input" : "intermediate";
      const bool seeded = p == c.output || !std::all_of(c.seeds[p].values.begin(), c.seeds[p].values.end(), isPositiveZero);
      if (seeded && any(c.seeds[p], isPositiveZero)) tags.insert("+0 seed at " + kind);
      if (!any(c.seeds[p], isNegativeZero)) continue;
      tags.insert("-0 seed at " + kind);
      if (p + 1 == c.graph.positionCount()) tags.insert("-0 seed at last position");
    }
  }
}

// The categories of op `kind`'s declared stress points (ops::stressValues, stressCancellation):
// "stress <op> <value>" for each value, "stress <op> cancellation" if it declares one.
inline std::vector<std::string> stressCategories(OpKind kind) {
  std::vector<std::string> categories;
  const std::string prefix = "stress " + std::string(opName(kind)) + " ";
  for (std::string_view value : ops::stressValues(kind)) categories.push_back(prefix + std::string(value));
  if (ops::stressCancellation(kind)) categories.push_back(prefix + "cancellation");
  return categories;
}

// How close two values must be for their difference to cancel half the digits: 2^-(p/2) of them
// (p the carrier's precision), the generator's nearly equal values being a third of that apart.
template <class T>
T cancellationDistance(const T& of) {
  return std::fabs(of) * std::ldexp(T(1), -std::numeric_limits<T>::digits / 2);
}

// Whether a and b are finite, different, and within cancellationDistance of a.
template <class T>
bool nearlyEqual(const T& a, const T& b) {
  return std::isfinite(a) && std::isfinite(b) && a != b && std::fabs(a - b) <= cancellationDistance(a);
}

// Whether some row (along the last axis) of x holds two or more values, not all equal, each
// within cancellationDistance of `centre`.
template <class T>
bool hasNearlyConstantRowAt(const Tensor<T>& x, const T& centre) {
  const std::size_t n = x.shape.empty() ? 0 : x.shape.back();
  if (n < 2) return false;
  for (std::size_t start = 0; start < x.size(); start += n) {
    bool near = true, different = false;
    for (std::size_t i = start; i < start + n; ++i) {
      near = near && std::isfinite(x[i]) && std::fabs(x[i] - centre) <= cancellationDistance(centre);
      different = different || x[i] != x[start];
    }
    if (near && different) return true;
  }
  return false;
}

// On IEEE carriers, the stress points nodes sit at (stressCategories): a node's first argument
// holds one of its op's stress values exactly (the carrier's reading of it, bit for bit: a value an
// ulp away is not at it); for a binary op that declares cancellation, an element of its second
// argument is nearlyEqual to the first's; for a unary one, a row of its argument is nearly constant
// (hasNearlyConstantRowAt) at one of its stress values.
template <class T>
void stressTags(const Graph<T>& graph, const Context<T>& context, std::set<std::string>& tags) {
  if constexpr (!Carrier<T>::caps.exact) {
    for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p) {
      const Node<T>& node = graph.nodeAt(p);
      if (node.args.empty()) continue;
      const Tensor<T>& x = context[node.args[0]];
      const std::string prefix = "stress " + std::string(opName(node.op)) + " ";
      bool rowAtStress = false;
      for (std::string_view text : ops::stressValues(node.op)) {
        const T value = *parseValue<T>(text);
        if (std::any_of(x.values.begin(), x.values.end(), [&](const T& v) { return Carrier<T>::same(v, value); }))
          tags.insert(prefix + std::string(text));
        rowAtStress = rowAtStress || hasNearlyConstantRowAt(x, value);
      }
      if (!ops::stressCancellation(node.op)) continue;
      bool cancels = node.args.size() == 1 && rowAtStress;
      if (node.args.size() == 2)
        for (std::size_t i = 0; i < x.size() && !cancels; ++i) cancels = nearlyEqual(x[i], context[node.args[1]][i]);
      if (cancels) tags.insert(prefix + "cancellation");
    }
  }
}

// On IEEE carriers, whether the dense order (docs/semantics.md §1.6) settles a −0 seed element to
// +0 through a pending +0: the element still holds −0 (every node that wrote its position so far
// added −0) when a later node that does not write its position adds the carrier's zero. The
// compiled engine leaves those additions out and must settle them; a −0 seed that a nonzero
// addition has already replaced, or that only nodes writing −0 follow, is not settled so.
template <class T>
bool settlesNegativeZeroSeed(const Case<T>& c, const Context<T>& context) {
  if constexpr (Carrier<T>::caps.exact) {
    return false;
  } else {
    auto isNegativeZero = [](const T& v) { return v == 0 && std::signbit(v); };
    auto anyNegativeZero = [&](const Tensor<T>& t) { return std::any_of(t.values.begin(), t.values.end(), isNegativeZero); };
    if (!std::any_of(c.seeds.begin(), c.seeds.end(), anyNegativeZero)) return false;
    Pack<T> gradients = c.seeds;
    for (std::size_t k = c.graph.positionCount(); k-- > c.graph.inputs.size();) {
      LocalContribution<T> local = localContribution<T>(c.graph, context, c.data, k, gradients[k]);
      auto next = local.support.begin();
      for (std::size_t p = 0; p < k; ++p) {
        const Tensor<T>* written = nullptr;
        if (local.isDense) written = &local.dense[p];
        else if (next != local.support.end() && next->first == p) written = &(next++)->second;
        if (!written && anyNegativeZero(gradients[p])) return true;
        if (written)
          for (std::size_t i = 0; i < gradients[p].size(); ++i) gradients[p][i] = gradients[p][i] + (*written)[i];
      }
    }
    return false;
  }
}

// The floors of the stress categories (stressCategories) of every op the cases may hold, on IEEE
// carriers outside the exact domain (the generator places stress points only there): about half
// of what the generator reaches at the default 100 cases per property (0.7% to 2.9% a stress
// value, 1.5% to 4.3% a cancellation over seeds 1 to 5).
template <class T>
void stressFloors(const CaseOptions& options, std::vector<CoverageFloor>& floors) {
  if (Carrier<T>::caps.exact || exactDomainOn<T>(options)) return;
  for (OpKind kind : ops::opsSupportedBy<T>())
    if (allowsOp<T>(options, kind))
      for (std::string& category : stressCategories(kind))
        floors.push_back({category, category.ends_with(" cancellation") ? 0.01 : 0.005});
}

template <class T>
void structureTags(const Graph<T>& graph, std::size_t output, std::set<std::string>& tags) {
  std::vector<std::size_t> uses(graph.positionCount(), 0);
  for (const Node<T>& node : graph.nodes) {
    std::string label = ops::nodeLabel(node.op, node.attrs);
    tags.insert(ops::isDense(node.op) ? label : "op " + label);
    for (std::size_t i = 0; i < node.args.size(); ++i) {
      ++uses[node.args[i]];
      if (std::count(node.args.begin(), node.args.begin() + i, node.args[i]) || (TC_MUTANT(repeated_argument_any_pair) && i == 1))
        tags.insert("repeated argument");  // the planted fault: any second argument counted
    }
  }
  if (std::any_of(uses.begin(), uses.end(), [](std::size_t n) { return n >= 2; })) tags.insert("fan-out");
  for (std::size_t p = 0; p < graph.positionCount(); ++p) tags.insert(fmt::format("rank {}", std::min<std::size_t>(graph.shapeAt(p).size(), 3)));
  // Nodes the output does not depend on.
  std::vector<bool> needed(graph.positionCount(), false);
  needed[output] = true;
  for (std::size_t p = graph.positionCount(); p-- > graph.inputs.size();)
    if (needed[p])
      for (std::size_t a : graph.nodeAt(p).args) needed[a] = true;
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
    if (!needed[p]) tags.insert("unused node");
  if (graph.isInput(output)) tags.insert("output at input");
  else if (output + 1 == graph.positionCount()) tags.insert("output at last node");
  else tags.insert("output at intermediate");
}

// Kernel paths (docs/semantics.md §3, "Sizes that reach every kernel path"): which parts of the
// dense kernels the products, matrix-vector folds, outer products and transposes of the case's
// matmul and linear nodes run, forward and terms, read from their shapes (kernels::productPaths).
// The IEEE product kernel runs on IEEE carriers, and on intervals for a forward whose operands
// are doubles folding exactly in double (kernels::foldProductsOfDoubles); the transpose's tiles
// on every carrier.
inline void productPathTags(std::size_t m, std::size_t depth, std::size_t n, std::size_t valueBytes,
                            std::set<std::string>& tags) {
  const kernels::ProductPaths paths = kernels::productPaths(m, depth, n, valueBytes);
  const std::pair<bool, const char*> named[] = {
      {paths.fewRowsWide, "kernel product few rows x4"}, {paths.fewRowsVector, "kernel product few rows x1"},
      {paths.tiles, "kernel product tiles"},             {paths.panel, "kernel product panel"},
      {paths.leftoverRows, "kernel product leftover rows"}, {paths.tailColumns, "kernel product tail columns"},
      {paths.depthBlocks, "kernel product depth blocks"}, {paths.rowBlocks, "kernel product row blocks"}};
  for (const auto& [runs, name] : named)
    if (runs) tags.insert(name);
}

// Rows folded four at a time and the rows left over (foldRowDots, an [m, k] matrix times a vector);
// for linear's term of W, an outer product's vector body and its last columns (addOuterProductIeee,
// in the compiled runtime's dense pass).
inline void vectorPathTags(std::size_t m, std::size_t k, std::size_t valueBytes, bool outerProduct,
                           std::set<std::string>& tags) {
  if (m > kernels::kTileRows && m % kernels::kTileRows != 0) tags.insert("kernel row dots leftover rows");
  const std::size_t lanes = kernels::lanesOf(valueBytes);
  if (outerProduct && k > lanes && k % lanes != 0) tags.insert("kernel outer product tail");
}

// Whether an interval holds a point that no double holds, judged on exact rationals (pointValue) and not
// by kernels::exactDouble, the conversion whose check this category is there to exercise.
inline bool pointNoDoubleHolds(const Interval& x) {
  const std::optional<Rational> q = pointValue(x);
  if (!q) return false;
  const double nearest = q->convert_to<double>();
  return !std::isfinite(nearest) || Rational(nearest) != *q;
}

// On intervals: a product (dot, matmul, linear) reads a point no double holds, so that it must fold on
// the carrier's own arithmetic, not in the double kernel (kernels::foldProductsOfDoubles).
template <class T>
void pointOffDoubleTags(const Graph<T>& graph, const Context<T>& context, std::set<std::string>& tags) {
  if constexpr (std::is_same_v<T, Interval>) {
    for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p) {
      const Node<T>& node = graph.nodeAt(p);
      if (node.op != OpKind::dot && node.op != OpKind::matmul && node.op != OpKind::linear) continue;
      for (std::size_t arg : node.args)
        if (std::ranges::any_of(context[arg].values, pointNoDoubleHolds)) {
          tags.insert("non-double point into a product");
          return;
        }
    }
  }
}

template <class T>
void kernelPathTags(const Case<T>& c, const std::optional<Context<T>>& context, std::set<std::string>& tags) {
  constexpr bool ieee = std::is_floating_point_v<T>;
  for (std::size_t p = c.graph.inputs.size(); p < c.graph.positionCount(); ++p) {
    const Node<T>& node = c.graph.nodeAt(p);
    if (node.op != OpKind::matmul && node.op != OpKind::linear) continue;
    const Shape& a = c.graph.shapeAt(node.args[0]);
    const Shape& b = c.graph.shapeAt(node.args[1]);
    const std::size_t m = a[0], k = a[1];
    if (node.op == OpKind::matmul && b.size() == 2) {
      const std::size_t n = b[1];
      // The term ct·bᵀ copies bᵀ in tiles: more than one along an axis, the last one partial.
      if ((k > kernels::kTransposeTile && k % kernels::kTransposeTile != 0) ||
          (n > kernels::kTransposeTile && n % kernels::kTransposeTile != 0))
        tags.insert("kernel transpose tiles");
      if constexpr (ieee) {
        for (const auto& [rows, depth, columns] : {std::array{m, k, n}, std::array{m, n, k}, std::array{k, m, n}})
          productPathTags(rows, depth, columns, sizeof(T), tags);
      } else if constexpr (kernels::HoldsDoubles<T>) {
        if (!context) continue;
        const Tensor<T>& x = (*context)[node.args[0]];
        const Tensor<T>& y = (*context)[node.args[1]];
        const auto xs = kernels::exactDoubles(x.values.data(), m, k, k, 1);
        const auto ys = kernels::exactDoubles(y.values.data(), k, n, n, 1);
        if (xs && ys && kernels::foldIsExactInDouble(*xs, *ys, k)) {
          tags.insert("kernel product in double");
          productPathTags(m, k, n, sizeof(double), tags);
        }
      }
    } else if constexpr (ieee) {
      vectorPathTags(m, k, sizeof(T), node.op == OpKind::linear, tags);  // a matrix times a vector, or linear
      if (node.op == OpKind::linear) productPathTags(1, m, k, sizeof(T), tags);  // x's term: ctᵀ·W
    }
  }
}

// Whether an argument of a node whose op has kinks holds −0 in `context`: forward_oracle compares the
// sign each op gives there on the exact domain (relu(−0) = +0, max(−0, +0) = −0, abs clears it), and
// kink_conventions the terms at −0 on every value.
template <class T>
bool feedsNegativeZeroToKinkedOp(const Graph<T>& graph, const Context<T>& context) {
  if constexpr (!std::is_floating_point_v<T>) {
    return false;
  } else {
    for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p) {
      const Node<T>& node = graph.nodeAt(p);
      if (!ops::hasKinks(node.op)) continue;
      for (std::size_t arg : node.args)
        if (std::ranges::any_of(context[arg].values, [](T v) { return v == 0 && std::signbit(v); })) return true;
    }
    return false;
  }
}

}  // namespace detail

template <class T>
std::vector<std::string> coverageTags(const Case<T>& c) {
  std::set<std::string> tags;
  detail::structureTags(c.graph, c.output, tags);
  std::optional<Context<T>> context;
  if (auto evaluated = spec::eval(c.graph, *c.inputs, c.data)) context = std::move(*evaluated);
  if (context) {
    for (std::size_t p = c.graph.inputs.size(); p < c.graph.positionCount(); ++p)
      if (atKink(c.graph, *context, c.data, p)) tags.insert("kink " + std::string(opName(c.graph.nodeAt(p).op)));
    detail::stressTags(c.graph, *context, tags);
    if (detail::settlesNegativeZeroSeed(c, *context)) tags.insert("-0 seed under pending +0");
    if (detail::feedsNegativeZeroToKinkedOp(c.graph, *context)) tags.insert("-0 into relu, abs, clamp, max or min");
    detail::pointOffDoubleTags(c.graph, *context, tags);
  } else {
    tags.insert("domain failure");
  }
  detail::specialValueTags(c, context, tags);
  detail::kernelPathTags(c, context, tags);
  std::size_t seeded = 0;
  for (const Tensor<T>& seed : c.seeds)
    seeded += std::any_of(seed.values.begin(), seed.values.end(), [](const T& v) { return !Carrier<T>::same(v, zero<T>()); });
  tags.insert(seeded > 1 ? "seed pack" : "single seed");
  for (const Tensor<T>& input : *c.inputs)
    if (std::any_of(input.values.begin(), input.values.end(), [](const T& v) { return detail::isIeeeSpecial(v); }))
      tags.insert("IEEE special value");
  return {tags.begin(), tags.end()};
}

namespace detail {

// The kernel paths' floors: about half the least share ten default runs reached (the kernel-sized
// cases are about 2% of a run's cases), and enough that a run of 100 cases per property (about 1600
// cases per IEEE carrier) can judge them (casesToJudge). On intervals (1%: too few for a floor per
// path) the forward's product running in the double kernel and the transpose's tiles (0.2%, judged
// from 3,500 cases); the exact carriers' products are the plain loops, and only the transpose of b
// has tiles.
template <class T>
void kernelPathFloors(const CaseOptions& options, std::vector<CoverageFloor>& floors) {
  constexpr bool ieee = std::is_floating_point_v<T>;
  const bool matmul = allowsOp<T>(options, OpKind::matmul), linear = allowsOp<T>(options, OpKind::linear);
  std::vector<CoverageFloor> paths;
  if (matmul) paths.push_back({"kernel transpose tiles", kernels::HoldsDoubles<T> ? 0.002 : ieee ? 0.005 : 0.006});
  if constexpr (kernels::HoldsDoubles<T>) {
    if (matmul) paths.push_back({"kernel product in double", 0.015});
    if constexpr (Carrier<T>::caps.exact)
      if (matmul || linear || allowsOp<T>(options, OpKind::dot)) paths.push_back({"non-double point into a product", 0.025});
  } else if constexpr (ieee) {
    if (matmul) {
      for (const char* name : {"kernel product tiles", "kernel product panel", "kernel product tail columns",
                               "kernel product row blocks"})
        paths.push_back({name, 0.008});
      paths.push_back({"kernel product leftover rows", 0.007});
      paths.push_back({"kernel product few rows x4", 0.005});
      for (const char* name : {"kernel product depth blocks", "kernel product few rows x1"}) paths.push_back({name, 0.0045});
    }
    if (linear) {
      paths.push_back({"kernel row dots leftover rows", 0.005});
      paths.push_back({"kernel outer product tail", 0.005});
    }
  }
  // Halved in the exact domain, as the op floors are: the domain rejects some kernel-sized draws, and an
  // engine's verdict judges that domain from as few as 700 cases.
  const double share = exactDomainOn<T>(options) ? 0.5 : 1;
  for (CoverageFloor& path : paths) floors.push_back({std::move(path.tag), path.minShare * share});
}

}  // namespace detail

template <class T>
std::vector<CoverageFloor> coverageFloors(const CaseOptions& options) {
  const bool exactDomain = exactDomainOn<T>(options);
  auto allowed = [&](OpKind kind) { return allowsOp<T>(options, kind); };
  std::vector<CoverageFloor> floors;
  for (OpKind kind : ops::opsSupportedBy<T>())
    if (allowed(kind)) floors.push_back({"op " + std::string(opName(kind)), exactDomain ? 0.01 : 0.02});
  // About half of what the generator reaches at the default 100 cases per property.
  if (allowed(OpKind::opaque))
    for (const char* name : {"opaque twice", "opaque const3"}) floors.push_back({name, 0.04});
  // kink_conventions checks the value chosen at each kink: the generator must reach every one.
  if (!options.avoidKinks)
    for (OpKind kind : ops::opsSupportedBy<T>())
      if (allowed(kind) && ops::hasKinks(kind)) floors.push_back({"kink " + std::string(opName(kind)), 0.01});
  floors.push_back({"rank 0", 0.2});
  for (const char* name : {"rank 1", "rank 2"}) floors.push_back({name, 0.4});
  floors.push_back({"rank 3", 0.1});
  floors.push_back({"fan-out", 0.3});
  floors.push_back({"repeated argument", 0.1});
  floors.push_back({"unused node", 0.3});
  // No op of the exact domain fails; a profile's op set may have none that can.
  if (!exactDomain && !options.ops) floors.push_back({"domain failure", 0.02});
  floors.push_back({"output at input", 0.07});
  floors.push_back({"output at intermediate", 0.05});
  floors.push_back({"output at last node", 0.4});
  floors.push_back({"single seed", 0.35});
  floors.push_back({"seed pack", 0.12});
  detail::kernelPathFloors<T>(options, floors);
  if (!Carrier<T>::caps.exact && !exactDomain) {
    floors.push_back({"IEEE special value", 0.15});
    // −0 into the kinked ops, where only relu and abs have −0 put at their kink on every value (max,
    // min and clamp meet it by chance: a profile without relu and abs reaches under 1%); none on the
    // exact domain, where only forward_oracle's cases draw −0 (CaseOptions::signedZeros).
    const bool zeroKink = std::ranges::any_of(ops::opsSupportedBy<T>(), [&](OpKind kind) {
      return allowed(kind) && ops::kinkPlace(kind) == KinkPlace::zero;
    });
    if (zeroKink && !options.avoidKinks) floors.push_back({"-0 into relu, abs, clamp, max or min", 0.015});
    // Signed zeros where the dense order settles or keeps them, and specials through every family
    // of ops the cases may hold: about half of what the generator reaches, less for the rare ones.
    floors.push_back({"+0 seed at output", 0.15});
    floors.push_back({"-0 seed at output", 0.07});
    floors.push_back({"-0 seed at last position", 0.05});
    floors.push_back({"-0 seed under pending +0", 0.025});
    for (const char* name : {"-0 seed at input", "-0 seed at intermediate"}) floors.push_back({name, 0.01});
    for (const char* name : {"+0 seed at input", "+0 seed at intermediate"}) floors.push_back({name, 0.02});
    std::set<std::string> families;
    for (OpKind kind : ops::opsSupportedBy<T>())
      if (allowed(kind)) families.insert(std::string(ops::family(kind)));
    if (allowed(OpKind::opaque)) families.insert("opaque");
    for (const std::string& family : families)
      for (const char* special : {"NaN into ", "inf into "}) floors.push_back({special + family, 0.005});
  }
  detail::stressFloors<T>(options, floors);
  return floors;
}

}  // namespace tc::gen

// The library's copies of the generator's and the core's templates, declared extern.
#include "generators/generator_instances.h"
