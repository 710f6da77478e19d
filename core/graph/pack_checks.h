#pragma once
// The checks every engine runs on what it is given besides the graph: inputs, data, seed packs
// and the seed of a single output. Each error is one line naming what is wrong.
#include <cstddef>

#include "core/graph/graph.h"
#include "core/support/result.h"

namespace tc {

//! Checks that `inputs` fit the graph's input shapes.
template <class T>
Result<void> checkInputs(const Graph<T>& graph, const Pack<T>& inputs);
//! Checks that `data` holds exactly the schema's tensor keys with their shapes.
template <class T>
Result<void> checkData(const Graph<T>& graph, const Data<T>& data);
//! Checks that a seed pack has one tensor per position, each of that position's shape.
template <class T>
Result<void> checkSeedPack(const Graph<T>& graph, const Pack<T>& seeds);
//! Checks that `output` is a position of the graph and `seed` has that position's shape.
template <class T>
Result<void> checkOutputSeed(const Graph<T>& graph, std::size_t output, const Tensor<T>& seed);

}  // namespace tc
