#pragma once
// Oracle: compiling twice and running each pass twice, on one Compiled and on two, gives
// identical results (the passes reuse scratch marks; nothing may leak between calls).
#include "core/io/case_file.h"
#include "core/ops/kernels.h"
#include "core/runtime/compiled.h"
#include "properties/compare.hpp"

namespace tc::props {

template <class T>
Verdict determinism(const Case<T>& c) {
  auto first = compileChecked(c.graph, *c.inputs, c.data);
  auto second = compileChecked(c.graph, *c.inputs, c.data);
  if (!first || !second)
    return (!first && !second && first.error() == second.error()) ? Verdict::pass()
                                                                   : Verdict::fail("compileChecked is not deterministic");
  if (std::string d = packDifference(first->context(), second->context()); !d.empty())
    return Verdict::fail("two compilations: context " + d);
  Pack<T> dense = *first->backwardDenseFrom(c.seeds);
  for (const auto* compiled : {&*first, &*second}) {
    if (std::string d = packDifference(*compiled->backwardDenseFrom(c.seeds), dense); !d.empty())
      return Verdict::fail("backwardDenseFrom repeated: " + d);
  }
  // Single-output passes at every position, interleaved, then the output's again.
  Pack<T> once = first->backwardDenseAllFrom(c.output, c.seeds[c.output])->gradients.materialize();
  for (std::size_t p = 0; p < c.graph.positionCount(); ++p)
    (void)first->backwardDenseAllFrom(p, Tensor<T>::filled(c.graph.shapeAt(p), one<T>()));
  Pack<T> again = first->backwardDenseAllFrom(c.output, c.seeds[c.output])->gradients.materialize();
  if (std::string d = packDifference(once, again); !d.empty())
    return Verdict::fail("backwardDenseAllFrom repeated after other outputs: " + d);
  return Verdict::pass();
}

}  // namespace tc::props
