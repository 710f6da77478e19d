#pragma once
#include <fmt/format.h>

#include <algorithm>

#include "core/support/mutants.h"
#include "core/graph/node_program.hpp"
#include "core/runtime/forward.hpp"
#include "core/runtime/lowering.h"
#include "core/runtime/tape.hpp"

namespace tc {

template <class T>
TapeNode<T> leafTapeNode(const Tensor<T>& value) {
  return TapeNode<T>{"input", value, true, {}, [](const Tensor<T>&) { return Result<Contributions<T>>{}; }};
}

template <class T>
TapeNode<T> denseTapeNode(const Graph<T>& graph, const Data<T>& data, std::shared_ptr<const Context<T>> context,
                          std::size_t position) {
  const Node<T>& node = graph.nodeAt(position);
  std::string name = ops::isDense(node.op) ? node.attrs.opaque->name : std::string(opName(node.op));
  auto backward = [&graph, &data, context, position](const Tensor<T>& upstream) -> Result<Contributions<T>> {
    const Shape& shape = graph.shapeAt(position);
    if (upstream.shape != shape)
      return fail(fmt::format("{}: upstream gradient has shape {}, expected {}", describeNode(graph, position),
                              formatShape(upstream.shape), formatShape(shape)));
    LocalContribution<T> c = localContribution<T>(graph, *context, data, position, upstream);
    if (c.isDense) {
      Contributions<T> all;
      // The fault leaves out the position just below the node (a bound one short).
      for (std::size_t p = 0; p + TC_MUTANT(tape_opaque_bound_short) < position; ++p) all.emplace_back(p, std::move(c.dense[p]));
      return all;
    }
    Contributions<T> all;
    auto next = c.support.begin();
    for (std::size_t p = 0; p < position; ++p) {
      if (next != c.support.end() && next->first == p) all.emplace_back(p, std::move((next++)->second));
      else all.emplace_back(p, std::nullopt);  // the zero, not built
    }
    return all;
  };
  return TapeNode<T>{std::move(name), (*context)[position], true, node.args, std::move(backward)};
}

template <class T>
TapeAndContext<T> lowerGraphDataToTape(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data) {
  auto context = evaluateUnchecked(graph, inputs, data);
  Tape<T> tape;
  tape.nodes.reserve(graph.positionCount());
  for (const Tensor<T>& input : inputs) tape.nodes.push_back(leafTapeNode(input));
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
    tape.nodes.push_back(denseTapeNode<T>(graph, data, context, p));
  return {std::move(tape), std::move(context)};
}

template <class T>
Result<TapeAndContext<T>> lowerToArrayChecked(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data) {
  auto context = evaluateChecked(graph, inputs, data);
  if (!context) return std::unexpected(context.error());
  Tape<T> tape;
  tape.nodes.reserve(graph.positionCount());
  for (std::size_t p = 0; p < graph.positionCount(); ++p)
    tape.nodes.push_back(graph.isInput(p) ? leafTapeNode((**context)[p]) : denseTapeNode<T>(graph, data, *context, p));
  if (TC_MUTANT(array_lowering_contribution_order))  // the closures list their contributions highest position first
    for (TapeNode<T>& node : tape.nodes)
      node.backward = [inner = std::move(node.backward)](const Tensor<T>& upstream) -> Result<Contributions<T>> {
        auto contributions = inner(upstream);
        if (contributions) std::reverse(contributions->begin(), contributions->end());
        return contributions;
      };
  return TapeAndContext<T>{std::move(tape), std::move(*context)};
}

template <class T>
Result<TapeAndContext<T>> lowerToTapeChecked(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data) {
  // A leaf per input (inputs that do not fit fail the forward's check, and the tape is dropped),
  // then each node's tape node right after its value.
  Tape<T> tape;
  tape.nodes.reserve(graph.positionCount());
  for (std::size_t i = 0; i + TC_MUTANT(tape_missing_leaf) < inputs.size(); ++i)  // the fault: no leaf for the last input
    tape.nodes.push_back(leafTapeNode(inputs[TC_MUTANT(tape_stale_value) && i > 0 ? i - 1 : i]));  // the fault: a stale value
  auto appendTapeNode = [&](std::size_t p, const std::shared_ptr<const Context<T>>& context) {
    tape.nodes.push_back(denseTapeNode<T>(graph, data, context, p));
  };
  auto context = evaluateChecked(graph, inputs, data, appendTapeNode);
  if (!context)  // the fault: the message loses its "node k (op): " prefix on this path only
    return fail(context.error().message.substr(TC_MUTANT(tape_error_message) ? context.error().message.find(": ") + 2 : 0));
  return TapeAndContext<T>{std::move(tape), std::move(*context)};
}

}  // namespace tc
