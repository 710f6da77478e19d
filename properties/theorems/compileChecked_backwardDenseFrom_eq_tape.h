#pragma once
// Theorem compileChecked_backwardDenseFrom_eq_tape: the fast backward interface agrees with the
// dense runtime tape engine (lowerGraphDataToTape), errors included. The tape's node values are
// compared with the engine's context first: gradients agree only as far as the values do.
#include "core/io/case_file.h"
#include "core/runtime/lowering.h"
#include "properties/compare.hpp"
#include "properties/engines/engine_under_test.h"

namespace tc::props {

template <class T>
Verdict compileChecked_backwardDenseFrom_eq_tape(const EngineUnderTest<T>& subject, const Case<T>& c) {
  auto execution = subject.engine.compile(c.graph, *c.inputs, c.data);
  // The unchecked lowering is defined where the checked evaluation succeeds.
  if (!execution || !evaluateChecked(c.graph, *c.inputs, c.data)) return Verdict::skip("domain failure");
  auto lowered = lowerGraphDataToTape(c.graph, *c.inputs, c.data);
  Pack<T> tapeValues;
  for (const TapeNode<T>& node : lowered.tape.nodes) tapeValues.push_back(node.value);
  const std::string_view engine = subject.engine.name();
  Verdict values = comparePacks(Quantity::forwardValues, "forward values", engine, (*execution)->context(),
                                "reference tape", tapeValues, subject.policy);
  if (!values.holds) return values;
  auto dense = (*execution)->backwardDense(c.seeds);
  auto tape = lowered.tape.backwardDenseFrom(c.seeds);
  if (dense && tape)
    return comparePacks(Quantity::gradients, "dense gradients", engine, *dense, "reference tape", *tape, subject.policy);
  Mismatch d = resultDifference(dense, tape, [&](const Pack<T>& a, const Pack<T>& b) { return packMismatch(a, b, subject.policy); });
  return verdictOf(fmt::format("dense gradients: {} (left) vs the reference tape of lowerGraphDataToTape", engine), d);
}

}  // namespace tc::props
