// core/graph: the checks GraphBuilder makes (every error names the node and says why), input,
// data and seed-pack checks, seed packs, and the opaque registry.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/graph/builder.h"
#include "core/ops/opaque.h"
#include "core/graph/seed_pack.h"

namespace tc {
namespace {

//! The error of `result`, or "<no error>".
template <class R>
std::string errorOf(const R& result) {
  return result ? std::string("<no error>") : result.error().message;
}

// ---------------------------------------------------------------------------------------------
// GraphBuilder::create
// ---------------------------------------------------------------------------------------------

TEST(GraphBuilder, CreateChecksInputShapes) {
  EXPECT_EQ(errorOf(GraphBuilder<double>::create({{2}, {2, 0}})), "input 1: shape [2, 0]: dimension 1 is 0; every dimension must be at least 1");
  EXPECT_EQ(errorOf(GraphBuilder<double>::create({{2048, 2049}})),
            "input 0: shape [2048, 2049] has more than 4194304 elements");
  auto fine = GraphBuilder<double>::create({{2, 3}, {}});
  ASSERT_TRUE(fine.has_value());
  EXPECT_EQ(fine->graph().inputs, (std::vector<Shape>{{2, 3}, {}}));
  EXPECT_TRUE(fine->graph().nodes.empty());
}

TEST(GraphBuilder, CreateChecksTheInputsElementBudget) {
  // Four inputs of kMaxElements fill kMaxGraphElements exactly; a fifth is one too many.
  std::vector<Shape> four(4, Shape{kMaxElements});
  EXPECT_TRUE(GraphBuilder<double>::create(four).has_value());
  std::vector<Shape> five(5, Shape{kMaxElements});
  EXPECT_EQ(errorOf(GraphBuilder<double>::create(five)), "input 4: the inputs hold more than 16777216 elements in all");
}

TEST(GraphBuilder, CreateChecksDataTensorShapes) {
  DataSchema schema;
  schema.tensors["m"] = Shape{0};
  EXPECT_EQ(errorOf(GraphBuilder<double>::create({{2}}, schema)), "data tensor 'm': shape [0]: dimension 0 is 0; every dimension must be at least 1");
  schema.tensors["m"] = Shape{2};
  auto fine = GraphBuilder<double>::create({{2}}, schema);
  ASSERT_TRUE(fine.has_value());
  EXPECT_EQ(fine->graph().schema.tensors.at("m"), Shape{2});
}

// ---------------------------------------------------------------------------------------------
// GraphBuilder::add
// ---------------------------------------------------------------------------------------------

TEST(GraphBuilder, AddReturnsPositionsAfterTheInputs) {
  auto b = *GraphBuilder<double>::create({{2}, {2}});
  EXPECT_EQ(b.add(OpKind::add, {0, 1}), 2u);
  EXPECT_EQ(b.add(OpKind::neg, {2}), 3u);
  const Graph<double>& g = b.graph();
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.positionCount(), 4u);
  EXPECT_EQ(g.nodeAt(3).op, OpKind::neg);
  EXPECT_EQ(g.nodeAt(3).args, std::vector<std::size_t>{2});
  EXPECT_EQ(g.shapeAt(3), Shape{2});
}

TEST(GraphBuilder, ReservedNodesJoinWithoutTheGraphGrowingAgain) {
  auto b = *GraphBuilder<double>::create({{2}});
  b.add(OpKind::neg, {0}).value();
  b.reserveNodes(4);
  const Node<double>* first = &b.graph().nodes.front();
  for (std::size_t k = 1; k <= 4; ++k) b.add(OpKind::neg, {k}).value();
  EXPECT_EQ(&b.graph().nodes.front(), first);  // never moved
  EXPECT_EQ(b.graph().nodes.capacity(), 5u);  // no room beyond what was asked for
}

TEST(GraphBuilder, ArgumentsMustBeEarlierPositions) {
  auto b = *GraphBuilder<double>::create({{2}});
  EXPECT_EQ(errorOf(b.add(OpKind::neg, {1})), "node 1 (neg): argument 0 is position 1, which is not earlier than 1");
  EXPECT_EQ(errorOf(b.add(OpKind::add, {0, 7})), "node 1 (add): argument 1 is position 7, which is not earlier than 1");
  EXPECT_TRUE(b.graph().nodes.empty());  // a failed add leaves the graph as it was
  EXPECT_EQ(b.add(OpKind::neg, {0}), 1u);
  EXPECT_EQ(errorOf(b.add(OpKind::mul, {1, 2})), "node 2 (mul): argument 1 is position 2, which is not earlier than 2");
}

TEST(GraphBuilder, ArityIsChecked) {
  auto b = *GraphBuilder<double>::create({{2}, {2}});
  EXPECT_EQ(errorOf(b.add(OpKind::add, {0})), "node 2 (add): takes 2 arguments, got 1");
  EXPECT_EQ(errorOf(b.add(OpKind::neg, {0, 1})), "node 2 (neg): takes 1 arguments, got 2");
  EXPECT_EQ(errorOf(b.add(OpKind::sum, {})), "node 2 (sum): takes 1 arguments, got 0");
  EXPECT_TRUE(b.graph().nodes.empty());
}

TEST(GraphBuilder, OpsTheCarrierCannotComputeAreRejected) {
  auto q = *GraphBuilder<Rational>::create({{2}});
  EXPECT_EQ(errorOf(q.add(OpKind::exp, {0})),
            "node 1 (exp): needs transcendental functions, which the rational carrier does not have");
  auto m = *GraphBuilder<ModP>::create({{2}});
  EXPECT_EQ(errorOf(m.add(OpKind::relu, {0})), "node 1 (relu): needs an ordered carrier, which the modp carrier does not have");
  // The carrier is checked before the arity.
  EXPECT_EQ(errorOf(q.add(OpKind::log, {0, 0})),
            "node 1 (log): needs transcendental functions, which the rational carrier does not have");
  auto d = *GraphBuilder<double>::create({{2}});
  EXPECT_EQ(d.add(OpKind::exp, {0}), 1u);
}

TEST(GraphBuilder, DeclaredShapeMustEqualTheInferredShape) {
  auto b = *GraphBuilder<double>::create({{2, 3}});
  EXPECT_EQ(errorOf(b.add(OpKind::neg, {0}, {}, Shape{3, 2})),
            "node 1 (neg): declared shape [3, 2] differs from the inferred shape [2, 3]");
  EXPECT_EQ(errorOf(b.add(OpKind::sum, {0}, {}, Shape{1})), "node 1 (sum): declared shape [1] differs from the inferred shape []");
  EXPECT_TRUE(b.graph().nodes.empty());
  EXPECT_EQ(b.add(OpKind::neg, {0}, {}, Shape{2, 3}), 1u);
  EXPECT_EQ(b.add(OpKind::sum, {1}, {}, Shape{}), 2u);
}

TEST(GraphBuilder, AllPositionsTogetherStayWithinTheElementBudget) {
  // The input and three nodes of kMaxElements reach kMaxGraphElements exactly.
  auto b = *GraphBuilder<double>::create({{kMaxElements}});
  for (std::size_t k = 0; k < 3; ++k) ASSERT_EQ(b.add(OpKind::neg, {k}), k + 1);
  EXPECT_EQ(errorOf(b.add(OpKind::neg, {3})), "node 4 (neg): the graph would hold more than 16777216 elements in all positions");
  EXPECT_EQ(b.graph().nodes.size(), 3u);
  // Not even a scalar fits once the budget is full.
  EXPECT_EQ(errorOf(b.add(OpKind::sum, {3})), "node 4 (sum): the graph would hold more than 16777216 elements in all positions");
}

// ---------------------------------------------------------------------------------------------
// Input, data and seed-pack checks
// ---------------------------------------------------------------------------------------------

TEST(GraphChecks, InputsMustMatchTheGraphsInputShapes) {
  auto b = *GraphBuilder<double>::create({{2, 3}, {}});
  const Graph<double>& g = b.graph();
  Pack<double> fine{Tensor<double>::filled({2, 3}, 1.0), Tensor<double>::filled({}, 2.0)};
  EXPECT_TRUE(checkInputs(g, fine).has_value());
  EXPECT_EQ(errorOf(checkInputs(g, Pack<double>{fine[0]})), "the graph has 2 inputs, 1 were given");
  Pack<double> wrongShape{Tensor<double>::filled({3}, 1.0), fine[1]};
  EXPECT_EQ(errorOf(checkInputs(g, wrongShape)), "input 0 has shape [3], the graph expects [2, 3]");
}

TEST(GraphChecks, DataMustHoldExactlyTheSchemasTensors) {
  DataSchema schema;
  schema.tensors["m"] = Shape{2};
  auto b = *GraphBuilder<double>::create({{2}}, schema);
  const Graph<double>& g = b.graph();
  EXPECT_TRUE(checkData(g, Data<double>{{"m", Tensor<double>::filled({2}, 1.0)}}).has_value());
  EXPECT_EQ(errorOf(checkData(g, Data<double>{})), "data tensor 'm' is missing");
  EXPECT_EQ(errorOf(checkData(g, Data<double>{{"m", Tensor<double>::filled({3}, 1.0)}})),
            "data tensor 'm' has shape [3], the schema says [2]");
  EXPECT_EQ(errorOf(checkData(g, Data<double>{{"m", Tensor<double>::filled({2}, 1.0)}, {"z", Tensor<double>::filled({}, 1.0)}})),
            "data tensor 'z' is not in the graph's schema");
}

//! Inputs [2, 3] and [], then neg of the first: positions of shapes [2, 3], [], [2, 3].
template <class T>
Graph<T> threePositions() {
  auto b = *GraphBuilder<T>::create({{2, 3}, {}});
  b.add(OpKind::neg, {0}).value();
  return std::move(b).build();
}

TEST(SeedPack, ZeroSeedPackHasOneZeroTensorPerPosition) {
  Graph<Rational> g = threePositions<Rational>();
  Pack<Rational> pack = zeroSeedPack(g);
  ASSERT_EQ(pack.size(), 3u);
  EXPECT_EQ(pack[0].shape, (Shape{2, 3}));
  EXPECT_EQ(pack[1].shape, Shape{});
  EXPECT_EQ(pack[2].shape, (Shape{2, 3}));
  EXPECT_EQ(pack[0].values, std::vector<Rational>(6, Rational(0)));
  EXPECT_EQ(pack[1].values, std::vector<Rational>{Rational(0)});
  EXPECT_EQ(pack[2].values, std::vector<Rational>(6, Rational(0)));
  EXPECT_TRUE(checkSeedPack(g, pack).has_value());
}

TEST(SeedPack, ZerosArePositiveZeroOnDouble) {
  Pack<double> pack = zeroSeedPack(threePositions<double>());
  ASSERT_EQ(pack.size(), 3u);
  for (const Tensor<double>& t : pack)
    for (double x : t.values) EXPECT_TRUE(x == 0.0 && !std::signbit(x));
}

TEST(SeedPack, SingleSeedPackSeedsOnePosition) {
  Graph<ModP> g = threePositions<ModP>();
  const Tensor<ModP> seed({}, {ModP::fromInt(5)});
  Pack<ModP> pack = singleSeedPack(g, 1, seed);
  ASSERT_EQ(pack.size(), 3u);
  EXPECT_EQ(pack[1].shape, Shape{});
  EXPECT_EQ(pack[1].values, std::vector<ModP>{ModP::fromInt(5)});
  EXPECT_EQ(pack[0].values, std::vector<ModP>(6, ModP()));
  EXPECT_EQ(pack[2].values, std::vector<ModP>(6, ModP()));
  EXPECT_TRUE(checkSeedPack(g, pack).has_value());
}

TEST(SeedPack, CheckSeedPackNamesTheWrongPosition) {
  Graph<double> g = threePositions<double>();
  Pack<double> pack = zeroSeedPack(g);
  pack.pop_back();
  EXPECT_EQ(errorOf(checkSeedPack(g, pack)), "a seed pack needs 3 tensors (one per position), got 2");
  pack = zeroSeedPack(g);
  pack[1] = Tensor<double>::filled({2}, 0.0);
  EXPECT_EQ(errorOf(checkSeedPack(g, pack)), "seed at position 1 has shape [2], the position has shape []");
}

// ---------------------------------------------------------------------------------------------
// Opaque registry
// ---------------------------------------------------------------------------------------------

//! An opaque entry with a name and arity (no programs: only the registry and builder see it).
OpaqueDef<double> entry(std::string name, std::size_t arity, Requirement needs = Requirement::ring) {
  OpaqueDef<double> def;
  def.name = std::move(name);
  def.arity = arity;
  def.needs = needs;
  def.shape = [](std::span<const Shape* const> args) -> Result<Shape> { return *args[0]; };
  return def;
}

TEST(OpaqueRegistry, FindsTheBuiltins) {
  auto& registry = OpaqueRegistry<double>::instance();
  const OpaqueDef<double>* const3 = registry.find("const3");
  ASSERT_NE(const3, nullptr);
  EXPECT_EQ(const3->name, "const3");
  EXPECT_FALSE(const3->linearInCotangent);
  const OpaqueDef<double>* twice = registry.find("twice");
  ASSERT_NE(twice, nullptr);
  EXPECT_EQ(twice->arity, 1u);
  EXPECT_TRUE(twice->linearInCotangent);
  EXPECT_EQ(registry.find("thrice"), nullptr);
  EXPECT_EQ(registry.find(""), nullptr);
}

TEST(OpaqueRegistry, AddRejectsATakenNameAndKeepsEntriesInPlace) {
  auto& registry = OpaqueRegistry<double>::instance();
  const OpaqueDef<double>* twice = registry.find("twice");
  EXPECT_EQ(errorOf(registry.add(entry("twice", 2))), "opaque op 'twice' is already registered");
  EXPECT_EQ(registry.find("twice"), twice);
  EXPECT_EQ(registry.find("twice")->arity, 1u);  // the built-in, not the rejected entry

  auto added = registry.add(entry("graph_test.registry", 2));
  ASSERT_TRUE(added.has_value());
  EXPECT_EQ(registry.find("graph_test.registry"), *added);
  EXPECT_EQ((*added)->arity, 2u);
  EXPECT_EQ(registry.find("twice"), twice);  // adding does not move earlier entries
  EXPECT_EQ(errorOf(registry.add(entry("graph_test.registry", 1))), "opaque op 'graph_test.registry' is already registered");
}

TEST(OpaqueRegistry, BuilderLooksUpOpaqueNodesAndChecksThem) {
  auto& registry = OpaqueRegistry<double>::instance();
  ASSERT_TRUE(registry.add(entry("graph_test.pair", 2)).has_value());
  auto b = *GraphBuilder<double>::create({{2}, {2}});
  EXPECT_EQ(errorOf(b.addOpaque("no_such_op", {0})), "node 2 (opaque): unknown opaque name 'no_such_op'");
  EXPECT_EQ(errorOf(b.addOpaque("graph_test.pair", {0})), "node 2 (opaque graph_test.pair): takes 2 arguments, got 1");
  EXPECT_EQ(errorOf(b.add(OpKind::opaque, {0})), "node 2 (opaque): no opaque entry given");
  EXPECT_EQ(errorOf(b.addOpaque("twice", {0}, Shape{3})),
            "node 2 (opaque twice): declared shape [3] differs from the inferred shape [2]");
  EXPECT_EQ(b.addOpaque("graph_test.pair", {0, 1}), 2u);
  EXPECT_EQ(b.graph().nodeAt(2).attrs.opaque, registry.find("graph_test.pair"));
}

TEST(OpaqueRegistry, AnOpaqueEntrysRequirementIsChecked) {
  OpaqueDef<Rational> def;
  def.name = "graph_test.transcendental";
  def.needs = Requirement::transcendental;
  ASSERT_TRUE(OpaqueRegistry<Rational>::instance().add(std::move(def)).has_value());
  auto b = *GraphBuilder<Rational>::create({{2}});
  EXPECT_EQ(errorOf(b.addOpaque("graph_test.transcendental", {0})),
            "node 1 (opaque graph_test.transcendental): needs transcendental functions, which the rational carrier does "
            "not have");
}

}  // namespace
}  // namespace tc
