#pragma once
// What an engine-scoped property is given besides the case: the engine, the policy its results
// are judged by, and what it declares about itself.
#include "core/io/case_file.h"
#include "core/spec/exactness.h"
#include "properties/compare.h"
#include "properties/engines/engine.h"
#include "properties/engines/faulted_cases.h"
#include "properties/engines/profile.h"

namespace tc::props {

//! An engine under test. `policy` judges every comparison of its results with the reference (a
//! profile that leaves the sign of zero unspecified turns `bits` into `bitsAnyZeroSign`); the
//! engine and `profile` must outlive it. With `exactCasesOnly` (the exact domain of a user's graph,
//! whose draws are not generated exact) the engine is judged only on cases of an IEEE carrier proven
//! exact in every evaluation order; the others are skipped. An Engine<T> converts to one with the defaults.
//! `faultedCases`, when set (by a run, for all its rows), is where a failure the engine faulted on
//! starts shrinking if an earlier row's case faults on this row too, and where its result is kept.
template <class T>
struct EngineUnderTest {
  EngineUnderTest(const Engine<T>& engine, Policy policy = Policy::bits, const EngineProfile& profile = specProfile(),
                  bool exactCasesOnly = false)
      : engine(engine),
        policy(policy == Policy::bits && profile.zeroSign == ZeroSign::unspecified ? Policy::bitsAnyZeroSign : policy),
        profile(&profile),
        exactCasesOnly(exactCasesOnly) {}
  const Engine<T>& engine;
  Policy policy;
  const EngineProfile* profile;
  bool exactCasesOnly;
  FaultedCases* faultedCases = nullptr;
};

//! Why case `c` is outside the exact domain, or empty: a graph with an op the domain lacks names
//! its node (the same for every case of the graph); values that may round say only that, their
//! place and bits differing from draw to draw (so that skips count under one reason).
template <class T>
std::string notExactReason(const Case<T>& c) {
  if (auto ops = spec::checkOpsInExactDomain(c.graph); !ops) return ops.error().message;
  if (auto exact = spec::checkExactDomain(c.graph, *c.inputs, c.data, c.seeds); !exact) return "not in the exact domain";
  return {};
}

//! The failure of an engine's pass that gave an error instead of gradients, labelled with the
//! engine's name and blamed on the node the error names, if any.
template <class T>
Verdict passFailed(const Engine<T>& engine, std::string_view pass, const Error& error) {
  return Verdict::fail(fmt::format("{}: {} failed: {}", engine.name(), pass, error.message), positionsNamedBy(error));
}

}  // namespace tc::props
