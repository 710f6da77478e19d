#pragma once
#include <fmt/format.h>

#include <algorithm>

#include "core/support/mutants.h"
#include "core/graph/pack_checks.hpp"
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
    if (TC_MUTANT(33) && node.op == OpKind::sub) std::swap(args[0], args[1]);
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
    if (TC_MUTANT(30) && graph.nodeAt(p).op == OpKind::log) {  // forgets log's domain check
      const Node<T>& node = graph.nodeAt(p);
      auto args = detail::argumentValues(node, std::span<const Tensor<T>>(*context));
      context->push_back(forwardNode(OpCall<T>{node, {args.data(), args.size()}, graph.schema, data}));
      continue;
    }
    auto value = validateAndForward<T>(graph, *context, data, p);
    if (!value && TC_MUTANT(31)) {  // the message names the position before the failing node
      const std::string& message = value.error().message;
      return fail(fmt::format("node {}{}", p - 1, message.substr(std::min(message.find(' ', 5), message.size()))));
    }
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
  if (TC_MUTANT(21))  // the closures list their contributions highest position first
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
  if (auto ok = checkInputs(graph, inputs); !ok) return std::unexpected(ok.error());
  if (auto ok = checkData(graph, data); !ok) return std::unexpected(ok.error());
  auto context = std::make_shared<Context<T>>();
  context->reserve(graph.positionCount());
  Tape<T> tape;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    context->push_back(inputs[i]);
    if (TC_MUTANT(20) && i + 1 == inputs.size()) continue;  // the last input gets no leaf
    tape.nodes.push_back(leafTapeNode(inputs[i]));
  }
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p) {
    auto value = validateAndForward<T>(graph, *context, data, p);
    if (!value && TC_MUTANT(29)) {  // a different message on this path
      const std::string& message = value.error().message;
      return fail(message.substr(message.find(": ") + 2));
    }
    if (!value) return std::unexpected(value.error());
    context->push_back(std::move(*value));
    tape.nodes.push_back(denseTapeNode<T>(graph, data, context, p));
    if (TC_MUTANT(22) && p > 0 && graph.shapeAt(p - 1) == graph.shapeAt(p))  // a stale buffer: the previous value
      tape.nodes.back().value = (*context)[p - 1];
  }
  return TapeAndContext<T>{std::move(tape), std::move(context)};
}

}  // namespace tc
