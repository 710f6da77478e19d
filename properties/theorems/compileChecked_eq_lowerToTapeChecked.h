#pragma once
// Theorem compileChecked_eq_lowerToTapeChecked: saved execution and tape lowering agree on
// failures, the tape and every forward value.
#include "core/io/case_file.h"
#include "core/runtime/compiled.h"
#include "properties/compare.hpp"

namespace tc::props {

template <class T>
Verdict compileChecked_eq_lowerToTapeChecked(const Case<T>& c) {
  auto compiled = compileChecked(c.graph, *c.inputs, c.data);
  Result<TapeAndContext<T>> left =
      compiled ? Result<TapeAndContext<T>>(TapeAndContext<T>{
                     compiled->toTape(), std::make_shared<const Context<T>>(compiled->context())})
               : Result<TapeAndContext<T>>(std::unexpected(compiled.error()));
  auto right = lowerToTapeChecked(c.graph, *c.inputs, c.data);
  return verdictOf("compileChecked mapped to (toTape, context) vs lowerToTapeChecked",
                   resultDifference(left, right, loweringDifference<T>));
}

}  // namespace tc::props
