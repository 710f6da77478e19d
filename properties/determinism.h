#pragma once
// Oracle: compiling twice and running each pass twice, on one execution and on two, gives
// identical results (passes may reuse scratch marks; nothing may leak between calls). Two equal
// failures are not a result: a domain failure on both compiles is skipped (nothing to compare),
// and a pass that fails on a compiled case fails the property.
#include "core/io/case_file.h"
#include "properties/compare.hpp"
#include "properties/engine_under_test.h"

namespace tc::props {

template <class T>
Verdict determinism(const EngineUnderTest<T>& subject, const Case<T>& c) {
  const Engine<T>& engine = subject.engine;
  auto first = engine.compile(c.graph, *c.inputs, c.data);
  auto second = engine.compile(c.graph, *c.inputs, c.data);
  if (!first && !second && first.error() == second.error()) return Verdict::skip("domain failure");
  if (!first || !second) return Verdict::fail("compile is not deterministic");
  if (std::string d = packDifference((*first)->context(), (*second)->context()); !d.empty())
    return Verdict::fail("two compilations: context " + d);
  auto dense = (*first)->backwardDense(c.seeds);
  if (!dense) return Verdict::fail("backwardDenseFrom failed: " + dense.error().message);
  for (const auto* execution : {first->get(), second->get()}) {
    std::string d = resultDifference(execution->backwardDense(c.seeds), dense,
                                     [](const Pack<T>& a, const Pack<T>& b) { return packDifference(a, b); });
    if (!d.empty()) return Verdict::fail("backwardDenseFrom repeated: " + d);
  }
  // Single-output passes at every position, interleaved, then the output's again.
  auto gradientsOf = [](const Result<SingleOutputResult<T>>& r) -> Result<Pack<T>> {
    if (!r) return std::unexpected(r.error());
    return r->gradients;
  };
  auto once = gradientsOf((*first)->backwardSingle(c.output, c.seeds[c.output]));
  if (!once) return Verdict::fail("backwardDenseAllFrom failed: " + once.error().message);
  for (std::size_t p = 0; p < c.graph.positionCount(); ++p)
    (void)(*first)->backwardSingle(p, Tensor<T>::filled(c.graph.shapeAt(p), one<T>()));
  auto again = gradientsOf((*first)->backwardSingle(c.output, c.seeds[c.output]));
  std::string d = resultDifference(once, again, [](const Pack<T>& a, const Pack<T>& b) { return packDifference(a, b); });
  if (!d.empty()) return Verdict::fail("backwardDenseAllFrom repeated after other outputs: " + d);
  return Verdict::pass();
}

}  // namespace tc::props
