#pragma once
// Theorem SavedGraph.ofGraph_toTape: saved programs produce the same runtime tape, closures
// included, as lowering the graph directly.
#include "core/io/case_file.h"
#include "core/runtime/saved_graph.h"
#include "properties/compare.hpp"

namespace tc::props {

template <class T>
Verdict ofGraph_toTape(const Case<T>& c) {
  // The unchecked paths are defined where the checked evaluation succeeds.
  if (!evaluateChecked(c.graph, *c.inputs, c.data)) return Verdict::skip("domain failure");
  auto saved = SavedGraph<T>::ofGraph(c.graph, *c.inputs, c.data);
  auto lowered = lowerGraphDataToTape(c.graph, *c.inputs, c.data);
  return verdictOf("ofGraph(...).toTape vs lowerGraphDataToTape", tapeDifference(saved.saved.toTape(*c.inputs), lowered.tape));
}

}  // namespace tc::props
