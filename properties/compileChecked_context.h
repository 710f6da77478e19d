#pragma once
// Theorem compileChecked_context: a successful compilation has the original complete forward
// context.
#include "core/io/case_file.h"
#include "core/runtime/compiled.h"
#include "core/spec/reference.h"
#include "properties/compare.hpp"

namespace tc::props {

template <class T>
Verdict compileChecked_context(const Case<T>& c) {
  auto compiled = compileChecked(c.graph, *c.inputs, c.data);
  if (!compiled) return Verdict::skip("domain failure");
  auto reference = spec::eval(c.graph, *c.inputs, c.data);
  if (!reference) return Verdict::fail("compileChecked succeeded but eval failed: " + reference.error().message);
  std::string d = packDifference(compiled->context(), *reference);
  return d.empty() ? Verdict::pass() : Verdict::fail("context vs eval: " + d);
}

}  // namespace tc::props
