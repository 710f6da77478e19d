// The op table's shapes (generators/expected_shapes.h) against the ops' shape rules, and what a run
// does when the two, or the generator and the loader, disagree: the case fails, cut down to the node,
// and nothing is evaluated on shapes that would make a forward fill a tensor of the wrong size.
#include <gtest/gtest.h>

#include <set>

#include "core/io/case_file.h"
#include "generators/expected_shapes.hpp"
#include "generators/generate.h"
#include "generators/shrink.hpp"
#include "properties/runner/report.hpp"
#include "properties/runner/runner.h"
#include "properties/runner/runner.hpp"

namespace tc {
namespace {

using nlohmann::json;

template <class T>
class ExpectedShapes : public ::testing::Test {};
using Carriers = ::testing::Types<Rational, ModP, double, float, Interval>;
TYPED_TEST_SUITE(ExpectedShapes, Carriers);

// No false alarm: on every generated case the table and the rules agree, and the table states a
// shape for every op but opaque programs (so no op is let through unstated).
TYPED_TEST(ExpectedShapes, EveryGeneratedNodeHasTheShapeTheOpTableStates) {
  using T = TypeParam;
  std::set<OpKind> stated;
  for (std::uint64_t seed = 0; seed < 1500; ++seed) {
    gen::GeneratedCase<T> generated = gen::generateCase<T>(seed, static_cast<int>(seed % 101));
    ASSERT_TRUE(generated.loaded) << generated.loaded.error().message;
    const Graph<T>& graph = generated.loaded->graph;
    EXPECT_EQ(gen::shapeDisagreement(graph), std::nullopt) << generated.doc.dump();
    for (const Node<T>& node : graph.nodes)
      if (gen::expectedShape(graph, node)) stated.insert(node.op);
  }
  for (OpKind kind : ops::opsSupportedBy<T>())
    EXPECT_EQ(stated.contains(kind), kind != OpKind::opaque) << opName(kind);
}

template <class T>
Graph<T> loadedGraph(const char* text) {
  auto loaded = parseCase<T>(text);
  EXPECT_TRUE(loaded) << loaded.error().message;
  return loaded->graph;
}

TEST(ExpectedShapes, ANodeOfAnotherShapeIsNamedWithBothShapes) {
  Graph<Rational> graph = loadedGraph<Rational>(R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}, {"shape": [2]}],
      "nodes": [{"op": "concat0", "args": [0, 0]}, {"op": "transpose", "args": [0]}, {"op": "neg", "args": [1]}]})");
  EXPECT_EQ(gen::shapeDisagreement(graph), std::nullopt);
  graph.nodes[0].shape = {5, 3};  // one row too many
  EXPECT_EQ(gen::shapeDisagreement(graph), "node 2 (concat0): the op's shape rule gives [5, 3], the op table says [4, 3]");
  graph.nodes[0].shape = {4, 3};
  graph.nodes[1].shape = {2, 3};  // as many elements, not transposed
  EXPECT_EQ(gen::shapeDisagreement(graph), "node 3 (transpose): the op's shape rule gives [2, 3], the op table says [3, 2]");
}

// A matmul the loader refuses at node 4 (position 6): it reads sin of exp of input 0, and input 1;
// the first node and the last read what it does not.
const char* kRefusedMatmul = R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}, {"shape": [2]}, {"shape": [1]}],
    "nodes": [{"op": "neg", "args": [2]}, {"op": "exp", "args": [0]}, {"op": "sin", "args": [4]},
              {"op": "matmul", "args": [5, 1]}, {"op": "neg", "args": [1]}],
    "values": [["1", "2", "3", "4", "5", "6"], ["1", "2"], ["7"]], "output": 2, "seed": ["1"]})";

TEST(RefusedNodeCone, CutsADocumentDownToTheRefusedNodeAndWhatItReads) {
  auto original = caseFromJson<double>(json::parse(kRefusedMatmul));
  ASSERT_FALSE(original);
  EXPECT_EQ(original.error().message, "node 6 (matmul): needs [m, k] x [k, n] or [m, k] x [k], got [2, 3] x [2]");
  std::optional<json> cone = gen::refusedNodeCone<double>(json::parse(kRefusedMatmul));
  ASSERT_TRUE(cone);
  EXPECT_EQ(*cone, json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}, {"shape": [2]}],
      "nodes": [{"op": "exp", "args": [0]}, {"op": "sin", "args": [2]}, {"op": "matmul", "args": [3, 1]}],
      "values": [["1", "2", "3", "4", "5", "6"], ["1", "2"]], "output": 0})"));
  auto refusal = caseFromJson<double>(*cone);
  ASSERT_FALSE(refusal);
  EXPECT_EQ(refusal.error().message, "node 4 (matmul): needs [m, k] x [k, n] or [m, k] x [k], got [2, 3] x [2]");
}

TEST(RefusedNodeCone, HasNothingToCutWhereEveryNodeLoads) {
  json doc = json::parse(kRefusedMatmul);
  doc["nodes"][3]["args"] = json::array({5, 5});  // [2, 3] x [2, 3]: still refused
  EXPECT_TRUE(gen::refusedNodeCone<double>(doc));
  doc["nodes"][3]["args"] = json::array({5, 3});  // [2, 3] x [1]: no better
  EXPECT_TRUE(gen::refusedNodeCone<double>(doc));
  doc["nodes"][3] = json::parse(R"({"op": "transpose", "args": [5]})");
  EXPECT_TRUE(caseFromJson<double>(doc));
  EXPECT_EQ(gen::refusedNodeCone<double>(doc), std::nullopt);
  EXPECT_EQ(gen::refusedNodeCone<double>(json::parse(R"({"tapecheck": 1, "inputs": "no"})")), std::nullopt);
}

// What a run makes of a generated document the loader refuses: a failure, cut down to the node.
TEST(Disagreements, AGeneratedDocumentTheLoaderRefusesFailsCutDownToItsNode) {
  const auto* property = props::findProperty<double>("compileChecked_context");
  ASSERT_NE(property, nullptr);
  props::PropertyRun run = props::runPropertyOn(*property, builtinEngine<double>("compiled"), 3, [](std::size_t) {
    return props::SourcedCase<double>{json::parse(kRefusedMatmul), {}};
  });
  ASSERT_TRUE(run.failure);
  EXPECT_EQ(run.failure->verdict.why,
            "tapecheck's generator wrote a case that its loader refuses (one of the two is wrong): node 4 (matmul): "
            "needs [m, k] x [k, n] or [m, k] x [k], got [2, 3] x [2]");  // the cut document's position
  EXPECT_EQ(run.failure->shrunk, gen::refusedNodeCone<double>(json::parse(kRefusedMatmul)));
  EXPECT_EQ(run.failure->shrinkSteps, 1u);
}

// A loaded case whose node has a shape of another size (what a faulty shape rule gives): the run
// fails it by its shapes and never evaluates it (the forward would stop the process on a tensor of
// the wrong size). The shapes are changed in memory here, so its document reads back agreeing; with
// a faulty rule it reads back as it is (mutant concat0-shape-extra-row, docs/mutants.md).
TEST(Disagreements, ACaseWhoseShapesAreNotTheOpTablesFailsWithoutBeingEvaluated) {
  json doc = json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [2]}, {"shape": [3]}],
      "nodes": [{"op": "neg", "args": [1]}, {"op": "concat0", "args": [0, 0]}, {"op": "exp", "args": [3]}],
      "values": [["1", "2"], ["3", "4", "5"]]})");
  auto misshapen = [&] {
    Result<Case<double>> loaded = caseFromJson<double>(doc);
    loaded->graph.nodes[1].shape = {5};
    loaded->graph.nodes[2].shape = {5};
    return loaded;
  };
  for (const char* name : {"compileChecked_context", "forward_oracle", "accuracy", "file_round_trip"}) {
    const auto* property = props::findProperty<double>(name);
    ASSERT_NE(property, nullptr) << name;
    gen::CoverageTally coverage;
    props::PropertyRun run = props::runPropertyOn(*property, builtinEngine<double>("compiled"), 2,
                                                  [&](std::size_t) { return props::SourcedCase<double>{doc, misshapen()}; },
                                                  &coverage);
    ASSERT_TRUE(run.failure) << name;
    EXPECT_EQ(run.failure->verdict.why,
              "the loader's shapes are not the op table's (a fault in tapecheck): node 3 (concat0): the op's shape rule "
              "gives [5], the op table says [4]")
        << name;
    EXPECT_EQ(coverage.cases(), 0u) << "coverage evaluates a case: not one whose shapes disagree";
    // The listing shows the graph without values.
    const Case<double> failing = *misshapen();
    EXPECT_NE(props::formatCaseListing(failing, run.failure->verdict, 20).find("(not evaluated: node 3 (concat0)"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace tc
