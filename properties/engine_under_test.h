#pragma once
// What an engine-scoped property is given besides the case: the engine, the policy its results
// are judged by, and what it declares about itself.
#include "properties/compare.h"
#include "properties/engine.h"
#include "properties/profile.h"

namespace tc::props {

//! An engine under test. `policy` judges every comparison of its results with the reference (a
//! profile that leaves the sign of zero unspecified turns `bits` into `bitsAnyZeroSign`); the
//! engine and `profile` must outlive it. An Engine<T> converts to one with the defaults.
template <class T>
struct EngineUnderTest {
  EngineUnderTest(const Engine<T>& engine, Policy policy = Policy::bits, const EngineProfile& profile = specProfile())
      : engine(engine),
        policy(policy == Policy::bits && profile.zeroSign == ZeroSign::unspecified ? Policy::bitsAnyZeroSign : policy),
        profile(&profile) {}
  const Engine<T>& engine;
  Policy policy;
  const EngineProfile* profile;
};

//! The failure of an engine's pass that gave an error instead of gradients, labelled with the
//! engine's name and blamed on the node the error names, if any.
template <class T>
Verdict passFailed(const Engine<T>& engine, std::string_view pass, const Error& error) {
  return Verdict::fail(fmt::format("{}: {} failed: {}", engine.name(), pass, error.message), positionsNamedBy(error));
}

}  // namespace tc::props
