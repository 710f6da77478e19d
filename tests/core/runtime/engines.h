#pragma once
// Runs one case through every engine, so a test states its expectation once (the idea of
// Stan Math's expect_ad): reference, both checked tape lowerings, the unchecked lowering, the
// saved graph's tape, the compiled dense pass, and (for a single seeded position) the
// single-output pass.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/carriers/carrier.h"
#include "core/graph/seed_pack.h"
#include "core/runtime/compiled.h"
#include "core/spec/reference.h"

namespace tc::testing {

template <class T>
struct EngineGradients {
  std::string engine;
  Pack<T> gradients;
};

// The only position whose seed is not all +0, if exactly one is.
template <class T>
std::optional<std::size_t> singleSeededPosition(const Pack<T>& seeds) {
  std::optional<std::size_t> found;
  for (std::size_t p = 0; p < seeds.size(); ++p)
    for (const T& v : seeds[p].values)
      if (!Carrier<T>::same(v, zero<T>())) {
        if (found && *found != p) return std::nullopt;
        found = p;
      }
  return found;
}

template <class T>
std::vector<EngineGradients<T>> gradientsOnEveryEngine(const Graph<T>& graph, const Pack<T>& inputs,
                                                       const Data<T>& data, const Pack<T>& seeds) {
  std::vector<EngineGradients<T>> all;
  auto reference = spec::backpropAll(graph, inputs, data, seeds);
  EXPECT_TRUE(reference) << reference.error().message;
  all.push_back({"reference", *reference});
  auto viaArray = lowerToArrayChecked(graph, inputs, data);
  all.push_back({"lowerToArrayChecked tape", *viaArray->tape.backwardDenseFrom(seeds)});
  auto viaTape = lowerToTapeChecked(graph, inputs, data);
  all.push_back({"lowerToTapeChecked tape", *viaTape->tape.backwardDenseFrom(seeds)});
  all.push_back({"lowerGraphDataToTape tape", *lowerGraphDataToTape(graph, inputs, data).tape.backwardDenseFrom(seeds)});
  all.push_back({"SavedGraph::ofGraph tape",
                 *SavedGraph<T>::ofGraph(graph, inputs, data).saved.toTape(inputs).backwardDenseFrom(seeds)});
  auto compiled = compileChecked(graph, inputs, data);
  all.push_back({"Compiled::toTape", *compiled->toTape().backwardDenseFrom(seeds)});
  all.push_back({"Compiled::backwardDenseFrom", *compiled->backwardDenseFrom(seeds)});
  if (auto output = singleSeededPosition(seeds))
    all.push_back({"Compiled::backwardDenseAllFrom",
                   compiled->backwardDenseAllFrom(*output, seeds[*output])->gradients.materialize()});
  return all;
}

//! Asserts that every engine gives `expected` at `position`, value by value (bit patterns on IEEE).
template <class T>
void expectGradientOnEveryEngine(const Graph<T>& graph, const Pack<T>& inputs, const Pack<T>& seeds,
                                 std::size_t position, const std::vector<T>& expected, const Data<T>& data = {}) {
  for (const auto& [engine, gradients] : gradientsOnEveryEngine(graph, inputs, data, seeds)) {
    ASSERT_EQ(gradients.size(), graph.positionCount()) << engine;
    const Tensor<T>& g = gradients[position];
    ASSERT_EQ(g.size(), expected.size()) << engine;
    for (std::size_t i = 0; i < expected.size(); ++i)
      EXPECT_TRUE(Carrier<T>::same(g[i], expected[i]))
          << engine << " [" << Carrier<T>::name << "]: gradient " << i << " at position " << position << " is "
          << Carrier<T>::format(g[i]) << ", expected " << Carrier<T>::format(expected[i]);
  }
}

}  // namespace tc::testing
