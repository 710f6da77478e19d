#pragma once
#include <fmt/format.h>

#include "core/graph/builder.hpp"
#include "core/graph/node_program.hpp"
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
  std::string name = node.op == OpKind::opaque ? node.attrs.opaque->name : std::string(opName(node.op));
  auto backward = [&graph, &data, context, position](const Tensor<T>& upstream) -> Result<Contributions<T>> {
    const Shape& shape = graph.shapeAt(position);
    if (upstream.shape != shape)
      return fail(fmt::format("{}: upstream gradient has shape {}, expected {}", describeNode(graph, position),
                              formatShape(upstream.shape), formatShape(shape)));
    LocalContribution<T> c = localContribution<T>(graph, *context, data, position, upstream);
    if (c.isDense) {
      Contributions<T> all;
      for (std::size_t p = 0; p < position; ++p) all.emplace_back(p, std::move(c.dense[p]));
      return all;
    }
    Contributions<T> all;
    auto next = c.support.begin();
    for (std::size_t p = 0; p < position; ++p) {
      if (next != c.support.end() && next->first == p) all.emplace_back(p, std::move((next++)->second));
      else all.emplace_back(p, kernels::zeros<T>(graph.shapeAt(p)));
    }
    return all;
  };
  return TapeNode<T>{std::move(name), (*context)[position], true, node.args, std::move(backward)};
}

template <class T>
std::shared_ptr<const Context<T>> evaluateUnchecked(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data) {
  auto context = std::make_shared<Context<T>>(inputs);
  context->reserve(graph.positionCount());
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p) {
    const Node<T>& node = graph.nodeAt(p);
    auto args = detail::argumentValues(node, std::span<const Tensor<T>>(*context));
    context->push_back(forwardNode(OpCall<T>{node, {args.data(), args.size()}, graph.schema, data}));
  }
  return context;
}

template <class T>
Result<std::shared_ptr<const Context<T>>> evaluateChecked(const Graph<T>& graph, const Pack<T>& inputs,
                                                          const Data<T>& data) {
  if (auto ok = checkInputs(graph, inputs); !ok) return std::unexpected(ok.error());
  if (auto ok = checkData(graph, data); !ok) return std::unexpected(ok.error());
  auto context = std::make_shared<Context<T>>(inputs);
  context->reserve(graph.positionCount());
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p) {
    auto value = validateAndForward<T>(graph, *context, data, p);
    if (!value) return std::unexpected(value.error());
    context->push_back(std::move(*value));
  }
  return context;
}

template <class T>
TapeAndContext<T> lowerGraphDataToTape(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data) {
  auto context = evaluateUnchecked(graph, inputs, data);
  Tape<T> tape;
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
  for (std::size_t p = 0; p < graph.positionCount(); ++p)
    tape.nodes.push_back(graph.isInput(p) ? leafTapeNode((**context)[p]) : denseTapeNode<T>(graph, data, *context, p));
  return TapeAndContext<T>{std::move(tape), std::move(*context)};
}

template <class T>
Result<TapeAndContext<T>> lowerToTapeChecked(const Graph<T>& graph, const Pack<T>& inputs, const Data<T>& data) {
  if (auto ok = checkInputs(graph, inputs); !ok) return std::unexpected(ok.error());
  if (auto ok = checkData(graph, data); !ok) return std::unexpected(ok.error());
  auto context = std::make_shared<Context<T>>();
  context->reserve(graph.positionCount());
  Tape<T> tape;
  for (const Tensor<T>& input : inputs) {
    context->push_back(input);
    tape.nodes.push_back(leafTapeNode(input));
  }
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p) {
    auto value = validateAndForward<T>(graph, *context, data, p);
    if (!value) return std::unexpected(value.error());
    context->push_back(std::move(*value));
    tape.nodes.push_back(denseTapeNode<T>(graph, data, context, p));
  }
  return TapeAndContext<T>{std::move(tape), std::move(context)};
}

}  // namespace tc
