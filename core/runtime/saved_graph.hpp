#pragma once
#include <algorithm>

#include "core/support/mutants.h"
#include "core/runtime/forward.hpp"
#include "core/runtime/lowering.hpp"
#include "core/runtime/saved_graph.h"

namespace tc {

template <class T>
template <class SlotOf>
void SavedGraph<T>::runInPlace(std::size_t position, const Tensor<T>& ct, SlotOf slotOf, Terms<T>& rest) const {
  const Node<T>& node = graph_->nodeAt(position);
  auto args = detail::argumentValues(node, std::span<const Tensor<T>>(*context_));
  ops::termsInPlace(node.op, callOf<T>(*graph_, node, args, *data_), ct, slotOf, rest);
}

template <class T>
SavedAndContext<T> SavedGraph<T>::ofGraph(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data) {
  auto context = evaluateUnchecked(graph, inputs, data);
  return {SavedGraph(graph, data, context), context};
}

template <class T>
Result<SavedAndContext<T>> SavedGraph<T>::lowerChecked(const Graph<T>& graph, const Pack<T>& inputs,
                                                       const Data<T>& data) {
  auto context = evaluateChecked(graph, inputs, data);
  if (!context) return fail((TC_MUTANT(saved_error_prefixed) ? "lowerChecked: " : "") + context.error().message);  // the fault: prefixed
  return SavedAndContext<T>{SavedGraph(graph, data, *context), *context};
}

template <class T>
Tape<T> SavedGraph<T>::toTape(std::span<const Tensor<T>> inputs) const {
  Tape<T> tape;
  tape.nodes.reserve(graph_->positionCount());
  for (const Tensor<T>& input : inputs) tape.nodes.push_back(leafTapeNode(input));
  for (std::size_t p = graph_->inputs.size(); p < graph_->positionCount(); ++p) {
    tape.nodes.push_back(denseTapeNode<T>(*graph_, *data_, context_, p));
    if (TC_MUTANT(saved_tape_parents_deduplicated)) {  // a repeated parent recorded once
      auto& parents = tape.nodes.back().parents;
      parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
    }
  }
  return tape;
}

}  // namespace tc
