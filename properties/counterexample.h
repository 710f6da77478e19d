#pragma once
// What a run saves for a failing case; made by shrunkFailure (properties/counterexample.hpp).
#include <nlohmann/json.hpp>

#include <string>

#include "properties/compare.h"

namespace tc::props {

//! A failing case as generated, the smallest failing case shrinking found, and its verdict. The
//! shrunk case is trusted only once its document, read back as a saved file is, fails the same
//! way again (docs/semantics.md §3.7); when it does not, `shrinkerFault` says why, `shrunk` is the
//! original case, and the run reports an internal error: tapecheck's shrinker, not the engine, is
//! at fault.
struct Counterexample {
  nlohmann::json original, shrunk;
  std::size_t shrinkSteps = 0;
  Verdict verdict;
  std::string shrinkerFault;
  //! Where shrinking started when not at `original` (its first step): empty, or what the case was —
  //! "a case the engine faulted on in an earlier row" (properties/engines/faulted_cases.h).
  std::string startedFrom;
};

}  // namespace tc::props
