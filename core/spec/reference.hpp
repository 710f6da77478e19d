#pragma once
#include <cassert>

#include "core/graph/node_program.hpp"
#include "core/graph/pack_checks.hpp"
#include "core/spec/reference.h"

namespace tc::spec {

// This loop is deliberately not shared with the runtime's checked forward (evaluateChecked): it is
// the independent version that the runtime paths are compared with.
template <class T>
Result<Context<T>> eval(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data) {
  if (auto ok = checkInputs(graph, inputs); !ok) return std::unexpected(ok.error());
  if (auto ok = checkData(graph, data); !ok) return std::unexpected(ok.error());
  Context<T> context = inputs;
  context.reserve(graph.positionCount());
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p) {
    auto value = validateAndForward<T>(graph, context, data, p);
    if (!value) return std::unexpected(value.error());
    context.push_back(std::move(*value));
  }
  return context;
}

namespace detail {

// G[p] = G[p] + c[p] for one position, where c[p] is the contribution (or the carrier's zero).
template <class T>
void addAt(Tensor<T>& gradient, const Tensor<T>* contribution) {
  const T z = zero<T>();
  for (std::size_t i = 0; i < gradient.size(); ++i)
    gradient[i] = gradient[i] + (contribution ? (*contribution)[i] : z);
}

}  // namespace detail

template <class T>
Pack<T> backpropAllCtx(const Graph<T>& graph, const Context<T>& context, const Data<T>& data, const Pack<T>& seed) {
  assert(checkSeedPack(graph, seed) && context.size() == graph.positionCount());
  Pack<T> gradients = seed;
  for (std::size_t k = graph.positionCount(); k-- > graph.inputs.size();) {
    LocalContribution<T> c = localContribution<T>(graph, context, data, k, gradients[k]);
    auto next = c.support.begin();
    for (std::size_t p = 0; p < k; ++p) {
      const Tensor<T>* contribution = nullptr;
      if (c.isDense) contribution = &c.dense[p];
      else if (next != c.support.end() && next->first == p) contribution = &(next++)->second;
      detail::addAt(gradients[p], contribution);
    }
  }
  return gradients;
}

template <class T>
Result<Pack<T>> backpropAll(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data, const Pack<T>& seed) {
  if (auto ok = checkSeedPack(graph, seed); !ok) return std::unexpected(ok.error());
  auto context = eval(graph, inputs, data);
  if (!context) return std::unexpected(context.error());
  return backpropAllCtx(graph, *context, data, seed);
}

}  // namespace tc::spec
