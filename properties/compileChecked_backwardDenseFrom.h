#pragma once
// Theorem compileChecked_backwardDenseFrom: compiled reverse execution agrees with full graph
// backpropagation for every seed pack.
#include "core/io/case_file.h"
#include "core/runtime/compiled.h"
#include "core/spec/reference.h"
#include "properties/compare.hpp"

namespace tc::props {

template <class T>
Verdict compileChecked_backwardDenseFrom(const Case<T>& c) {
  auto compiled = compileChecked(c.graph, *c.inputs, c.data);
  if (!compiled) return Verdict::skip("domain failure");
  auto dense = compiled->backwardDenseFrom(c.seeds);
  if (!dense) return Verdict::fail("backwardDenseFrom failed: " + dense.error().message);
  Pack<T> reference = spec::backpropAllCtx(c.graph, compiled->context(), c.data, c.seeds);
  std::string d = packDifference(*dense, reference);
  return d.empty() ? Verdict::pass() : Verdict::fail("backwardDenseFrom vs backpropAll: " + d);
}

}  // namespace tc::props
