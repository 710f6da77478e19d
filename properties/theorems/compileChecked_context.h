#pragma once
// Theorem compileChecked_context: a successful compilation has the original complete forward
// context. Checked on any engine: it compiles exactly where eval succeeds, and its context is eval's.
#include "core/io/case_file.h"
#include "core/spec/reference.h"
#include "properties/compare.hpp"
#include "properties/engines/engine_under_test.h"

namespace tc::props {

template <class T>
Verdict compileChecked_context(const EngineUnderTest<T>& subject, const Case<T>& c) {
  auto execution = subject.engine.compile(c.graph, *c.inputs, c.data);
  auto reference = spec::eval(c.graph, *c.inputs, c.data);
  if (!execution && !reference) return Verdict::skip("domain failure");
  if (!reference)
    return Verdict::fail(fmt::format("{} compiles but the reference's eval fails: {}", subject.engine.name(),
                                     reference.error().message),
                         positionsNamedBy(reference.error()));
  if (!execution)
    return Verdict::fail(fmt::format("{} fails to compile ({}) but the reference's eval succeeds", subject.engine.name(),
                                     execution.error().message),
                         positionsNamedBy(execution.error()));
  return comparePacks(Quantity::forwardValues, "forward values", subject.engine.name(), (*execution)->context(),
                      "reference", *reference, subject.policy);
}

}  // namespace tc::props
