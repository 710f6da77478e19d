#pragma once
// One RapidCheck property per theorem for one carrier: generated cases (never discarded), each
// property checked exactly, counterexamples shrunk graph-aware and printed as case files.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "generators/case_gen.h"
#include "properties/adjoint_identity.h"
#include "properties/all.h"
#include "properties/linearity.h"

namespace tc::testing {

template <class T>
void checkOnGeneratedCase(props::Verdict (*property)(const Case<T>&)) {
  nlohmann::json doc = *gen::arbitraryCase<T>();
  auto loaded = parseCase<T>(doc.dump());
  if (!loaded) RC_FAIL("generator bug, the case does not load: " + loaded.error().message + "\n" + doc.dump());
  props::Verdict verdict = property(*loaded);
  RC_CLASSIFY(!verdict.skipped.empty(), verdict.skipped);
  if (!verdict.holds) RC_FAIL(verdict.why + "\ncase: " + doc.dump());
}

}  // namespace tc::testing

#define TAPECHECK_PROPERTY(Suite, Carrier, Name) \
  RC_GTEST_PROP(Suite, Name, ()) { ::tc::testing::checkOnGeneratedCase<Carrier>(&::tc::props::Name<Carrier>); }

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
  TAPECHECK_PROPERTY(Suite, Carrier, linearity)
