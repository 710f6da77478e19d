#pragma once
// Theorem SavedGraph.lowerChecked_toTape: checked saved programs and indexed lowering have the
// same errors, tape and context.
#include "core/io/case_file.h"
#include "core/runtime/saved_graph.h"
#include "properties/compare.hpp"

namespace tc::props {

template <class T>
Verdict lowerChecked_toTape(const Case<T>& c) {
  auto saved = SavedGraph<T>::lowerChecked(c.graph, *c.inputs, c.data);
  Result<TapeAndContext<T>> left =
      saved ? Result<TapeAndContext<T>>(TapeAndContext<T>{saved->saved.toTape(*c.inputs), saved->context})
            : Result<TapeAndContext<T>>(std::unexpected(saved.error()));
  auto right = lowerToArrayChecked(c.graph, *c.inputs, c.data);
  return verdictOf("lowerChecked mapped to (toTape, context) vs lowerToArrayChecked",
                   resultDifference(left, right, loweringDifference<T>));
}

}  // namespace tc::props
