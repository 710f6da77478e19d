#pragma once
// Oracle: compiling twice and running each pass twice, on one execution and on two, gives
// identical results (passes may reuse scratch marks; nothing may leak between calls). Two equal
// failures are not a result: a domain failure on both compiles is skipped (nothing to compare),
// and a pass that fails on a compiled case fails the property.
#include <cstddef>
#include <vector>

#include "core/io/case_file.h"
#include "properties/compare.hpp"
#include "properties/engines/engine_under_test.h"

namespace tc::props {

//! How many single-output passes determinism interleaves at most.
inline constexpr std::size_t kInterleavedPasses = 32;

//! The positions determinism runs single-output passes from: all of `count` up to
//! kInterleavedPasses, else that many spread evenly from the first to the last.
inline std::vector<std::size_t> interleavedPositions(std::size_t count) {
  std::vector<std::size_t> positions;
  if (count <= kInterleavedPasses) {
    for (std::size_t p = 0; p < count; ++p) positions.push_back(p);
    return positions;
  }
  for (std::size_t k = 0; k < kInterleavedPasses; ++k) positions.push_back(k * (count - 1) / (kInterleavedPasses - 1));
  return positions;
}

template <class T>
Verdict determinism(const EngineUnderTest<T>& subject, const Case<T>& c) {
  const Engine<T>& engine = subject.engine;
  auto first = engine.compile(c.graph, *c.inputs, c.data);
  auto second = engine.compile(c.graph, *c.inputs, c.data);
  if (!first && !second && first.error() == second.error()) return Verdict::skip("domain failure");
  const std::string_view name = engine.name();
  if (!first || !second)
    return Verdict::fail(fmt::format("{}: compile is not deterministic: {}", name, (!first ? first : second).error().message),
                         positionsNamedBy((!first ? first : second).error()));
  if (Mismatch d = packMismatch((*first)->context(), (*second)->context()); !d.empty())
    return verdictOf(fmt::format("{}: two compilations: context", name), d);
  auto dense = (*first)->backwardDense(c.seeds);
  if (!dense) return passFailed(engine, "backwardDense", dense.error());
  auto packs = [](const Pack<T>& a, const Pack<T>& b) { return packMismatch(a, b); };
  for (const auto* execution : {first->get(), second->get()})
    if (Mismatch d = resultDifference(execution->backwardDense(c.seeds), dense, packs); !d.empty())
      return verdictOf(fmt::format("{}: backwardDense repeated", name), d);
  // Single-output passes at other positions (every one of a small graph, an even spread of a
  // large one: each pass costs the whole graph), interleaved, then the output's again.
  auto gradientsOf = [](const Result<SingleOutputResult<T>>& r) -> Result<Pack<T>> {
    if (!r) return std::unexpected(r.error());
    return r->gradients;
  };
  auto once = gradientsOf((*first)->backwardSingle(c.output, c.seeds[c.output]));
  if (!once) return passFailed(engine, "backwardSingle", once.error());
  for (std::size_t p : interleavedPositions(c.graph.positionCount()))
    (void)(*first)->backwardSingle(p, Tensor<T>::filled(c.graph.shapeAt(p), one<T>()));
  auto again = gradientsOf((*first)->backwardSingle(c.output, c.seeds[c.output]));
  return verdictOf(fmt::format("{}: backwardSingle repeated after other outputs", name), resultDifference(once, again, packs));
}

}  // namespace tc::props
