// The dense order's bookkeeping of signed zeros (docs/semantics.md §1.6, §1.11) as families rather
// than single witnesses: every graph of one or two scalar inputs and one or two nodes drawn from
// scale(1) (a write of ct), neg (a write of −ct) and add (two writes, a local sum on a repeated
// argument), under every seed pack of +0, −0, 1 and −1, on float and double. Each engine's
// gradients must equal, bit for bit, a small interpreter of §1.6's pseudo-code written here apart
// from core/spec, so a pass that keeps its own account of pending +0 writes is seen wherever a −0
// seed meets them.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/graph/builder.h"
#include "tests/core/runtime/engines.h"

namespace tc {
namespace {

// A node of the family: scale(1), neg or add on earlier positions.
struct FamilyNode {
  OpKind op;
  std::vector<std::size_t> args;
};

struct FamilyGraph {
  std::size_t inputs;
  std::vector<FamilyNode> nodes;
};

// Every family graph: one or two inputs; one or two nodes on any earlier positions.
std::vector<FamilyGraph> familyGraphs() {
  std::vector<FamilyGraph> graphs;
  std::function<void(FamilyGraph, std::size_t)> extend = [&](FamilyGraph g, std::size_t nodesLeft) {
    if (!g.nodes.empty()) graphs.push_back(g);
    if (nodesLeft == 0) return;
    const std::size_t positions = g.inputs + g.nodes.size();
    for (std::size_t a = 0; a < positions; ++a) {
      for (OpKind op : {OpKind::scale, OpKind::neg}) {
        FamilyGraph next = g;
        next.nodes.push_back({op, {a}});
        extend(next, nodesLeft - 1);
      }
      for (std::size_t b = 0; b < positions; ++b) {
        FamilyGraph next = g;
        next.nodes.push_back({OpKind::add, {a, b}});
        extend(next, nodesLeft - 1);
      }
    }
  };
  for (std::size_t inputs : {1, 2}) extend({inputs, {}}, 2);
  return graphs;
}

// §1.6 literally, for these three ops on scalars: G := seed; from the last node down, its
// contribution (a local sum per argument position, +0 elsewhere) is added to every earlier slot,
// ascending, existing value on the left.
template <class F>
std::vector<F> denseOrder(const FamilyGraph& g, std::vector<F> G) {
  for (std::size_t k = g.inputs + g.nodes.size(); k-- > g.inputs;) {
    const FamilyNode& node = g.nodes[k - g.inputs];
    const F ct = G[k];
    std::vector<std::optional<F>> local(k);
    for (std::size_t a : node.args) {
      const F term = node.op == OpKind::neg ? -ct : node.op == OpKind::scale ? F(1) * ct : ct;
      local[a] = local[a] ? *local[a] + term : term;
    }
    for (std::size_t p = 0; p < k; ++p) G[p] = G[p] + local[p].value_or(F(0));
  }
  return G;
}

template <class F>
Graph<F> built(const FamilyGraph& g) {
  auto b = *GraphBuilder<F>::create(std::vector<Shape>(g.inputs, Shape{}));
  for (const FamilyNode& node : g.nodes) {
    Attrs<F> attrs;
    if (node.op == OpKind::scale) attrs.c = F(1);
    EXPECT_TRUE(b.add(node.op, node.args, attrs));
  }
  return std::move(b).build();
}

std::string describe(const FamilyGraph& g) {
  std::string text = std::to_string(g.inputs) + " inputs;";
  for (const FamilyNode& node : g.nodes) {
    text += " " + std::string(opName(node.op)) + "(";
    for (std::size_t a : node.args) text += std::to_string(a) + ",";
    text.back() = ')';
  }
  return text;
}

template <class F>
class DenseOrderFamily : public ::testing::Test {};
using IeeeCarriers = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DenseOrderFamily, IeeeCarriers);

TYPED_TEST(DenseOrderFamily, EveryEngineSettlesSignedZerosAsTheDenseOrderDoes) {
  using F = TypeParam;
  const F values[] = {F(0), -F(0), F(1), F(-1)};
  std::size_t configurations = 0, negativeZeroResults = 0;
  for (const FamilyGraph& g : familyGraphs()) {
    const Graph<F> graph = built<F>(g);
    const std::size_t n = graph.positionCount();
    const Pack<F> inputs(g.inputs, Tensor<F>::filled({}, F(2)));
    for (std::size_t code = 0; code < (std::size_t{1} << (2 * n)); ++code) {
      std::vector<F> seedValues;
      Pack<F> seeds;
      for (std::size_t p = 0; p < n; ++p) {
        seedValues.push_back(values[(code >> (2 * p)) & 3]);
        seeds.push_back(Tensor<F>::filled({}, seedValues.back()));
      }
      const std::vector<F> expected = denseOrder(g, seedValues);
      for (F v : expected) negativeZeroResults += v == 0 && std::signbit(v);
      ++configurations;
      for (const auto& [engine, gradients] : testing::gradientsOnEveryEngine(graph, inputs, Data<F>{}, seeds))
        for (std::size_t p = 0; p < n; ++p)
          ASSERT_TRUE(Carrier<F>::same(gradients[p][0], expected[p]))
              << engine << " on " << describe(g) << ", seed code " << code << ": position " << p << " is "
              << Carrier<F>::format(gradients[p][0]) << ", the dense order gives " << Carrier<F>::format(expected[p]);
    }
  }
  // The families reach what the hand-written witnesses pin down: −0 kept as well as settled.
  EXPECT_GT(configurations, 10000u);
  EXPECT_GT(negativeZeroResults, 1000u);
}

}  // namespace
}  // namespace tc
