#pragma once
#include <algorithm>
#include <iterator>
#include <utility>

#include "core/support/mutants.h"
#include "core/graph/node_program.hpp"
#include "core/graph/pack_checks.hpp"
#include "core/runtime/forward.h"

namespace tc {
namespace detail {

// Node `position`'s forward value from the context so far, without its domain check.
template <class T>
Tensor<T> forwardUnchecked(const Graph<T>& graph, std::span<const Tensor<T>> context, const Data<T>& data,
                           std::size_t position) {
  const Node<T>& node = graph.nodeAt(position);
  auto args = argumentValues(node, context);
  if (TC_MUTANT(unchecked_eval_swaps_sub) && node.op == OpKind::sub) std::swap(args[0], args[1]);  // the fault: sub(b, a)
  return forwardNode(node.op, callOf<T>(graph, node, args, data));
}

}  // namespace detail

template <class T>
std::shared_ptr<const Context<T>> evaluateUnchecked(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data) {
  auto context = std::make_shared<Context<T>>(inputs);
  context->reserve(graph.positionCount());
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
    context->push_back(detail::forwardUnchecked<T>(graph, *context, data, p));
  return context;
}

template <class T, class OnNode>
Result<std::shared_ptr<const Context<T>>> evaluateChecked(const Graph<T>& graph, Pack<T> inputs,
                                                          const Data<T>& data, OnNode&& onNode) {
  if (auto ok = checkInputs(graph, inputs); !ok) return std::unexpected(ok.error());
  if (auto ok = checkData(graph, data); !ok) return std::unexpected(ok.error());
  auto context = std::make_shared<Context<T>>();
  context->reserve(graph.positionCount());  // before the inputs join, so that they move only once
  std::ranges::move(inputs, std::back_inserter(*context));
  const std::shared_ptr<const Context<T>> shared = context;  // what onNode sees
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p) {
    Tensor<T>& value = context->emplace_back();  // reserved: the arguments' addresses stay put
    if (TC_MUTANT(checked_forward_skips_log_check) && graph.nodeAt(p).op == OpKind::log)  // the fault: log unchecked
      value = detail::forwardUnchecked<T>(graph, *context, data, p);
    else if (auto ok = validateAndForwardInto<T>(graph, *context, data, p, value); !ok)
      return std::unexpected(ok.error());
    onNode(p, shared);
  }
  return shared;
}

template <class T>
Result<std::shared_ptr<const Context<T>>> evaluateChecked(const Graph<T>& graph, Pack<T> inputs,
                                                          const Data<T>& data) {
  return evaluateChecked(graph, std::move(inputs), data, [](std::size_t, const std::shared_ptr<const Context<T>>&) {});
}

}  // namespace tc
