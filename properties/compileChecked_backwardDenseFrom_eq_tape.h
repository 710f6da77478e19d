#pragma once
// Theorem compileChecked_backwardDenseFrom_eq_tape: the fast backward interface agrees with the
// dense runtime tape engine.
#include "core/io/case_file.h"
#include "core/runtime/compiled.h"
#include "properties/compare.hpp"

namespace tc::props {

template <class T>
Verdict compileChecked_backwardDenseFrom_eq_tape(const Case<T>& c) {
  auto compiled = compileChecked(c.graph, *c.inputs, c.data);
  if (!compiled) return Verdict::skip("domain failure");
  auto dense = compiled->backwardDenseFrom(c.seeds);
  auto tape = lowerGraphDataToTape(c.graph, *c.inputs, c.data).tape.backwardDenseFrom(c.seeds);
  std::string d = resultDifference(dense, tape, [](const Pack<T>& a, const Pack<T>& b) { return packDifference(a, b); });
  return d.empty() ? Verdict::pass() : Verdict::fail("backwardDenseFrom vs lowerGraphDataToTape tape: " + d);
}

}  // namespace tc::props
