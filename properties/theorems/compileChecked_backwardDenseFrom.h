#pragma once
// Theorem compileChecked_backwardDenseFrom: compiled reverse execution agrees with full graph
// backpropagation (the reference, on eval's context) for every seed pack.
#include "core/io/case_file.h"
#include "core/spec/reference.h"
#include "properties/compare.hpp"
#include "properties/engines/engine_under_test.h"

namespace tc::props {

template <class T>
Verdict compileChecked_backwardDenseFrom(const EngineUnderTest<T>& subject, const Case<T>& c) {
  auto execution = subject.engine.compile(c.graph, *c.inputs, c.data);
  auto context = spec::eval(c.graph, *c.inputs, c.data);
  if (!execution || !context) return Verdict::skip("domain failure");  // compileChecked_context judges these
  auto dense = (*execution)->backwardDense(c.seeds);
  if (!dense) return passFailed(subject.engine, "backwardDense", dense.error());
  Pack<T> reference = spec::backpropAllCtx(c.graph, *context, c.data, c.seeds);
  return comparePacks(Quantity::gradients, "dense gradients", subject.engine.name(), *dense, "reference", reference,
                      subject.policy);
}

}  // namespace tc::props
