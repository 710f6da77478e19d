#pragma once
// One RapidCheck property per theorem for one carrier: generated cases (never discarded), each
// property checked exactly on the compiled engine, counterexamples shrunk graph-aware and
// printed as case files.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "generators/case_gen.h"
#include "generators/coverage.h"
#include "properties/runner/runner.h"

namespace tc::testing {

template <class T>
void checkOnGeneratedCase(std::string_view name) {
  const props::NamedProperty<T>* property = props::findProperty<T>(name);
  RC_ASSERT(property != nullptr);
  gen::LoadedDoc<T> generated = *gen::arbitraryCase<T>();
  const Case<T>& loaded = *generated.loaded;
  auto tags = gen::coverageTags(loaded);
  auto has = [&](const char* tag) { return std::find(tags.begin(), tags.end(), tag) != tags.end(); };
  RC_TAG(has("domain failure") ? "domain failure" : "evaluates", has("fan-out") ? "fan-out" : "no fan-out");
  props::Verdict verdict = property->check(builtinEngine<T>("compiled"), loaded);
  RC_CLASSIFY(!verdict.skipped.empty(), verdict.skipped);
  if (!verdict.holds) RC_FAIL(verdict.why + "\ncase: " + generated.doc.dump());
}

}  // namespace tc::testing

#define TAPECHECK_PROPERTY(Suite, Carrier, Name) \
  RC_GTEST_PROP(Suite, Name, ()) { ::tc::testing::checkOnGeneratedCase<Carrier>(#Name); }

#define TAPECHECK_PROPERTY_SUITE(Suite, Carrier)                            \
  TAPECHECK_PROPERTY(Suite, Carrier, ofGraph_toTape)                        \
  TAPECHECK_PROPERTY(Suite, Carrier, lowerChecked_toTape)                   \
  TAPECHECK_PROPERTY(Suite, Carrier, compileChecked_eq_lowerToTapeChecked)  \
  TAPECHECK_PROPERTY(Suite, Carrier, compileChecked_context)                \
  TAPECHECK_PROPERTY(Suite, Carrier, compileChecked_backwardDenseFrom)      \
  TAPECHECK_PROPERTY(Suite, Carrier, compileChecked_backwardDenseFrom_eq_tape) \
  TAPECHECK_PROPERTY(Suite, Carrier, backwardDenseAllFrom_eq_dense)         \
  TAPECHECK_PROPERTY(Suite, Carrier, determinism)

//! The oracles that need exact arithmetic (and, for the adjoint identity, a dual carrier).
#define TAPECHECK_EXACT_ORACLES(Suite, Carrier)          \
  TAPECHECK_PROPERTY(Suite, Carrier, adjoint_identity) \
  TAPECHECK_PROPERTY(Suite, Carrier, node_adjoint_identity) \
  TAPECHECK_PROPERTY(Suite, Carrier, linearity)
