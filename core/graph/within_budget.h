#pragma once
// The budget's refusal (docs/budget.md), shared by the commands' loader gate (cli/budget.h) and
// `tapecheck serve`'s requests (adapters/process/serve.h).
#include <string>
#include <string_view>

#include "core/graph/cost.h"
#include "core/support/result.h"

namespace tc {

//! exceedsBudget as a refusal: nothing when the case fits, else describeExcess followed by how to
//! raise the limit it passed (`raiseWork`, `raiseMemory`: "; raise it with --max-work"; nothing for
//! the exact carriers' ceiling, which no option raises).
template <class T>
Result<void> withinBudget(const Graph<T>& graph, const Pack<T>* inputs, const Data<T>& data, const PassCounts& passes,
                          const Budget& budget, std::string_view raiseWork, std::string_view raiseMemory) {
  auto excess = exceedsBudget(graph, inputs, data, passes, budget);
  if (!excess) return {};
  std::string_view raise;
  switch (excess->limit) {
    case BudgetExcess::Limit::work: raise = raiseWork; break;
    case BudgetExcess::Limit::memory: raise = raiseMemory; break;
    case BudgetExcess::Limit::bits: break;  // a property of exact arithmetic, not a setting
  }
  return fail(describeExcess(graph, *excess) + std::string(raise));
}

}  // namespace tc
