#include "bench/workloads.h"

#include <cassert>
#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/builder.h"

namespace tc::bench {

ReluChain reluChain(std::size_t nodes) {
  auto b = *GraphBuilder<double>::create({{4}});
  b.reserveNodes(nodes);
  for (std::size_t k = 0; k < nodes; ++k) b.add(OpKind::relu, {k}).value();
  return {std::move(b).build(), {Tensor<double>({4}, {-2.0, -0.0, 0.5, 3.0})}};
}

template <class T>
SupportGraph<T> supportGraph(std::size_t nodes, std::size_t support) {
  assert(support >= 1 && support <= nodes);
  auto b = *GraphBuilder<T>::create({{}});
  b.reserveNodes(nodes);
  std::size_t chain = 0, noise = 0;
  std::size_t stride = nodes / support;
  for (std::size_t k = 0; k < nodes; ++k) {
    bool onChain = k % stride == stride - 1 && (k + 1) / stride <= support;
    if (onChain) chain = *b.add(OpKind::add, {chain, 0});
    else noise = *b.add(OpKind::neg, {noise});
  }
  return {std::move(b).build(), {Tensor<T>({}, {Carrier<T>::fromInt(3)})}, chain};
}
template SupportGraph<Rational> supportGraph<Rational>(std::size_t, std::size_t);
template SupportGraph<ModP> supportGraph<ModP>(std::size_t, std::size_t);

namespace {

// A small LCG: deterministic values in [-1, 1), divided by 16 (torch_bench.cpp draws the same).
Pack<double> lcgValues(const std::vector<Shape>& shapes) {
  Pack<double> values;
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 4503599627370496.0 - 1.0;
  };
  for (const Shape& shape : shapes) {
    std::vector<double> v(elementCount(shape));
    for (double& x : v) x = next() / 16.0;
    values.push_back(Tensor<double>(shape, std::move(v)));
  }
  return values;
}

}  // namespace

Mlp mlp(std::size_t width, std::size_t depth) {
  std::vector<Shape> inputs{{width}};
  for (std::size_t layer = 0; layer < depth; ++layer) {
    inputs.push_back({width, width});
    inputs.push_back({width});
  }
  auto b = *GraphBuilder<double>::create(inputs);
  std::size_t h = 0;
  for (std::size_t layer = 0; layer < depth; ++layer) {
    std::size_t w = 1 + 2 * layer;
    h = *b.add(OpKind::linear, {w, h, w + 1});
    h = *b.add(OpKind::relu, {h});
  }
  return {std::move(b).build(), lcgValues(inputs)};
}

Matmul matmul(std::size_t n) {
  std::vector<Shape> inputs{{n, n}, {n, n}};
  auto b = *GraphBuilder<double>::create(inputs);
  b.add(OpKind::matmul, {0, 1}).value();
  return {std::move(b).build(), lcgValues(inputs)};
}

std::string chainDocument(std::size_t nodes) {
  static const char* const kLinks[] = {R"({"op": "neg", "args": [%]})", R"({"op": "relu", "args": [%]})",
                                       R"({"op": "scale", "args": [%], "attrs": {"c": "1/2"}})",
                                       R"({"op": "square", "args": [%]})", R"({"op": "add", "args": [%, %]})"};
  std::string text = R"({"tapecheck": 1, "inputs": [{"shape": [4]}], "values": [["1", "-2", "0.75", "0"]], "nodes": [)";
  for (std::size_t k = 0; k < nodes; ++k) {
    std::string link = kLinks[k % 5];
    for (std::size_t at; (at = link.find('%')) != std::string::npos;) link.replace(at, 1, std::to_string(k));
    text += (k ? ",\n" : "\n") + link;
  }
  return text + "\n]}\n";
}

}  // namespace tc::bench
