#pragma once
#include <fmt/format.h>

#include "core/support/mutants.h"
#include "core/ops/kernels.h"
#include "core/runtime/tape.h"

namespace tc {

template <class T>
Result<Pack<T>> Tape<T>::backwardDenseFrom(Pack<T> acc) const {
  if (acc.size() != nodes.size())
    return fail(fmt::format("tape backward: {} gradients for {} tape nodes", acc.size(), nodes.size()));
  for (std::size_t id = nodes.size(); id-- > 0;) {
    const TapeNode<T>& node = nodes[id];
    if (!node.requiresGrad) continue;
    if (acc[id].shape != node.value.shape)
      return fail(fmt::format("tape node {} ({}): upstream gradient has shape {}, the value has shape {}", id,
                              node.name, formatShape(acc[id].shape), formatShape(node.value.shape)));
    auto contributions = node.backward(acc[id]);
    if (!contributions) return std::unexpected(contributions.error());
    for (const auto& [position, g] : *contributions) {
      if (position >= id)
        return fail(fmt::format("tape node {} ({}): contribution to position {}, which is not earlier", id,
                                node.name, position));
      const Shape& expected = nodes[position].value.shape;
      if (g && g->shape != expected)
        return fail(fmt::format("tape node {} ({}): contribution to position {} has shape {}, expected {}", id,
                                node.name, position, formatShape(g->shape), formatShape(expected)));
      if (!nodes[position].requiresGrad) continue;
      if (TC_MUTANT(tape_overwrite)) acc[position] = g ? *g : kernels::zeros<T>(expected);  // overwrites instead of accumulating
      else if (g) kernels::addInto(acc[position], *g);
      else kernels::addZeroInto(acc[position]);
    }
  }
  return acc;
}

}  // namespace tc
