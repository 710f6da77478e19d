#pragma once
#include <algorithm>
#include <cmath>
#include <set>

#include "core/carriers/carrier.h"
#include "core/graph/node_program.h"
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
// an intermediate node or the output; under the dense order's pending +0 writes of a later node,
// or at the last position where none comes); and where +0 sits in a seeded position's seed (one
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
      tags.insert(p + 1 < c.graph.positionCount() ? "-0 seed under pending +0" : "-0 seed at last position");
    }
  }
}

template <class T>
void structureTags(const Graph<T>& graph, std::size_t output, std::set<std::string>& tags) {
  std::vector<std::size_t> uses(graph.positionCount(), 0);
  for (const Node<T>& node : graph.nodes) {
    std::string label = ops::nodeLabel(node.op, node.attrs);
    tags.insert(ops::isDense(node.op) ? label : "op " + label);
    for (std::size_t i = 0; i < node.args.size(); ++i) {
      ++uses[node.args[i]];
      if (std::count(node.args.begin(), node.args.begin() + i, node.args[i])) tags.insert("repeated argument");
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
  } else {
    tags.insert("domain failure");
  }
  detail::specialValueTags(c, context, tags);
  std::size_t seeded = 0;
  for (const Tensor<T>& seed : c.seeds)
    seeded += std::any_of(seed.values.begin(), seed.values.end(), [](const T& v) { return !Carrier<T>::same(v, zero<T>()); });
  tags.insert(seeded > 1 ? "seed pack" : "single seed");
  for (const Tensor<T>& input : *c.inputs)
    if (std::any_of(input.values.begin(), input.values.end(), [](const T& v) { return detail::isIeeeSpecial(v); }))
      tags.insert("IEEE special value");
  return {tags.begin(), tags.end()};
}

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
  if (!Carrier<T>::caps.exact && !exactDomain) {
    floors.push_back({"IEEE special value", 0.15});
    // Signed zeros where the dense order settles or keeps them, and specials through every family
    // of ops the cases may hold: about half of what the generator reaches, less for the rare ones.
    floors.push_back({"+0 seed at output", 0.15});
    floors.push_back({"-0 seed at output", 0.07});
    floors.push_back({"-0 seed at last position", 0.05});
    floors.push_back({"-0 seed under pending +0", 0.04});
    for (const char* name : {"-0 seed at input", "-0 seed at intermediate"}) floors.push_back({name, 0.01});
    for (const char* name : {"+0 seed at input", "+0 seed at intermediate"}) floors.push_back({name, 0.02});
    std::set<std::string> families;
    for (OpKind kind : ops::opsSupportedBy<T>())
      if (allowed(kind)) families.insert(std::string(ops::family(kind)));
    if (allowed(OpKind::opaque)) families.insert("opaque");
    for (const std::string& family : families)
      for (const char* special : {"NaN into ", "inf into "}) floors.push_back({special + family, 0.005});
  }
  return floors;
}

}  // namespace tc::gen
