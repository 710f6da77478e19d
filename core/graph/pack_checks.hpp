#pragma once
#include <fmt/format.h>

#include "core/graph/pack_checks.h"
#include "core/support/text.h"

namespace tc {

template <class T>
Result<void> checkInputs(const Graph<T>& graph, const Pack<T>& inputs) {
  if (inputs.size() != graph.inputs.size())
    return fail(fmt::format("the graph has {} inputs, {} were given", graph.inputs.size(), inputs.size()));
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].shape != graph.inputs[i] || inputs[i].size() != elementCount(graph.inputs[i]))
      return fail(fmt::format("input {} has shape {}, the graph expects {}", i, formatShape(inputs[i].shape),
                              formatShape(graph.inputs[i])));
  return {};
}

template <class T>
Result<void> checkData(const Graph<T>& graph, const Data<T>& data) {
  for (const auto& [key, shape] : graph.schema.tensors) {
    auto entry = data.find(key);
    if (entry == data.end()) return fail(fmt::format("data tensor {} is missing", quote(key)));
    if (entry->second.shape != shape || entry->second.size() != elementCount(shape))
      return fail(fmt::format("data tensor {} has shape {}, the schema says {}", quote(key),
                              formatShape(entry->second.shape), formatShape(shape)));
  }
  for (const auto& entry : data)
    if (!graph.schema.tensors.contains(entry.first))
      return fail(fmt::format("data tensor {} is not in the graph's schema", quote(entry.first)));
  return {};
}

template <class T>
Result<void> checkSeedPack(const Graph<T>& graph, const Pack<T>& seeds) {
  if (seeds.size() != graph.positionCount())
    return fail(fmt::format("a seed pack needs {} tensors (one per position), got {}", graph.positionCount(),
                            seeds.size()));
  for (std::size_t p = 0; p < seeds.size(); ++p)
    if (seeds[p].shape != graph.shapeAt(p) || seeds[p].size() != elementCount(graph.shapeAt(p)))
      return fail(fmt::format("seed at position {} has shape {}, the position has shape {}", p,
                              formatShape(seeds[p].shape), formatShape(graph.shapeAt(p))));
  return {};
}

template <class T>
Result<void> checkOutputSeed(const Graph<T>& graph, std::size_t output, const Tensor<T>& seed) {
  if (output >= graph.positionCount())
    return fail(fmt::format("output position {} is out of range (the graph has {} positions)", output,
                            graph.positionCount()));
  if (seed.shape != graph.shapeAt(output) || seed.size() != elementCount(seed.shape))
    return fail(fmt::format("seed has shape {}, position {} has shape {}", formatShape(seed.shape), output,
                            formatShape(graph.shapeAt(output))));
  return {};
}

}  // namespace tc
