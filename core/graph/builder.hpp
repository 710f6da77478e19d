#pragma once
#include <fmt/format.h>

#include "core/graph/builder.h"
#include "core/graph/node_program.hpp"

namespace tc {

template <class T>
Result<GraphBuilder<T>> GraphBuilder<T>::create(std::vector<Shape> inputs, DataSchema schema) {
  std::size_t elements = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto size = checkShape(inputs[i]);
    if (!size) return fail(fmt::format("input {}: {}", i, size.error().message));
    elements += *size;
    if (elements > kMaxGraphElements)
      return fail(fmt::format("input {}: the inputs hold more than {} elements in all", i, kMaxGraphElements));
  }
  for (const auto& [key, shape] : schema.tensors)
    if (auto size = checkShape(shape); !size)
      return fail(fmt::format("data tensor {}: {}", quote(key), size.error().message));
  return GraphBuilder(Graph<T>{std::move(inputs), {}, std::move(schema), {}}, elements);
}

template <class T>
Result<std::size_t> GraphBuilder<T>::add(OpKind kind, std::vector<std::size_t> args, Attrs<T> attrs,
                                         std::optional<Shape> declared) {
  const std::size_t position = graph_.positionCount();
  if (kind == OpKind::opaque && !attrs.opaque)
    return fail(describeNode(position, opName(kind)) + ": no opaque entry given");
  auto error = [&](const std::string& why) { return fail(describeNode(position, ops::nodeLabel(kind, attrs)) + ": " + why); };
  Requirement needs = ops::requirement(kind, attrs);
  if (!satisfies(Carrier<T>::caps, needs))
    return error(fmt::format("needs {}, which the {} carrier does not have", requirementName(needs),
                             Carrier<T>::name));
  std::size_t arity = ops::arity(kind, attrs);
  if (args.size() != arity) return error(fmt::format("takes {} arguments, got {}", arity, args.size()));
  std::vector<const Shape*> argShapes;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] >= position)
      return error(fmt::format("argument {} is position {}, which is not earlier than {}", i, args[i], position));
    argShapes.push_back(&graph_.shapeAt(args[i]));
  }
  auto shape = inferShape(kind, ShapeCall<T>{attrs, argShapes, graph_.schema});
  if (!shape) return error(shape.error().message);
  auto size = checkShape(*shape);
  if (!size) return error(size.error().message);
  if (*size > kMaxGraphElements - elements_)
    return error(fmt::format("the graph would hold more than {} elements in all positions", kMaxGraphElements));
  if (declared && *declared != *shape)
    return error(fmt::format("declared shape {} differs from the inferred shape {}", formatShape(*declared),
                             formatShape(*shape)));
  graph_.nodes.push_back(Node<T>{kind, std::move(args), std::move(attrs), std::move(*shape)});
  elements_ += *size;
  return position;
}

template <class T>
Result<void> GraphBuilder<T>::addDataTensor(const std::string& key, Shape shape) {
  if (auto size = checkShape(shape); !size) return fail(fmt::format("data tensor {}: {}", quote(key), size.error().message));
  graph_.schema.tensors[key] = std::move(shape);
  return {};
}

template <class T>
void GraphBuilder<T>::addIndexList(const std::string& key, std::vector<std::size_t> rows) {
  graph_.schema.indices[key] = std::move(rows);
}

template <class T>
Result<std::size_t> GraphBuilder<T>::addOpaque(std::string_view name, std::vector<std::size_t> args,
                                               std::optional<Shape> declared) {
  const OpaqueDef<T>* def = OpaqueRegistry<T>::instance().find(name);
  if (!def) return fail(describeNode(graph_.positionCount(), "opaque") + ": unknown opaque name " + quote(name));
  Attrs<T> attrs;
  attrs.opaque = def;
  return add(OpKind::opaque, std::move(args), std::move(attrs), std::move(declared));
}

}  // namespace tc
