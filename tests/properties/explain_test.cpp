// Failures that explain themselves (issue 13): every failure message shows the quantities it
// compares, the engine's own name labels its side, and every kind of failure names the positions
// it blames, which listings mark and show --dot fills red with a legend.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "core/carriers/dual.h"
#include "core/carriers/rational.h"
#include "core/ops/kernels.h"
#include "core/ops/opaque.h"
#include "core/runtime/lowering.h"
#include "properties/compare.hpp"
#include "properties/runner/report.h"
#include "properties/runner/runner.h"

namespace tc {
namespace {

// What the planted engine gets wrong: one thing at a time, each failing a different property.
enum class Plant { denseGradient, context, compileError, programCount, nondeterministic };

// The compiled engine's execution with one planted fault.
template <class T>
class PlantedExecution final : public Execution<T> {
 public:
  PlantedExecution(std::unique_ptr<const Execution<T>> inner, Plant plant)
      : inner_(std::move(inner)), plant_(plant), context_(inner_->context()) {
    if (plant_ == Plant::context) context_.back()[0] = context_.back()[0] + one<T>();
  }
  const Context<T>& context() const override { return context_; }
  Result<Pack<T>> backwardDense(const Pack<T>& seeds) const override {
    auto gradients = inner_->backwardDense(seeds);
    if (plant_ == Plant::denseGradient) (*gradients)[0][0] = (*gradients)[0][0] + one<T>();
    if (plant_ == Plant::nondeterministic) (*gradients)[0][0] = (*gradients)[0][0] + Carrier<T>::fromInt(calls_++);
    return gradients;
  }
  Result<SingleOutputResult<T>> backwardSingle(std::size_t output, const Tensor<T>& seed) const override {
    auto single = inner_->backwardSingle(output, seed);
    if (plant_ == Plant::programCount) single->programsRun = *single->programsRun + 1;
    return single;
  }

 private:
  std::unique_ptr<const Execution<T>> inner_;
  Plant plant_;
  Context<T> context_;
  mutable std::int64_t calls_ = 0;
};

template <class T>
class PlantedEngine final : public Engine<T> {
 public:
  explicit PlantedEngine(Plant plant) : plant_(plant) {}
  std::string_view name() const override { return "planted"; }
  Result<std::unique_ptr<const Execution<T>>> compile(const Graph<T>& graph, const Pack<T>& inputs,
                                                      const Data<T>& data) const override {
    if (plant_ == Plant::compileError) return fail("node 2 (mul): a planted refusal");
    auto execution = builtinEngine<T>("compiled").compile(graph, inputs, data);
    if (!execution) return std::unexpected(execution.error());
    return std::make_unique<const PlantedExecution<T>>(std::move(*execution), plant_);
  }

 private:
  Plant plant_;
};

// x, y: [2]; 2 = mul(x, y); 3 = sum(2), the output, seeded with 1.
const nlohmann::json kCase = nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [2]}, {"shape": [2]}],
    "nodes": [{"op": "mul", "args": [0, 1]}, {"op": "sum", "args": [2]}], "values": [["1", "2"], ["3", "-1"]]})");

template <class T>
props::Verdict verdictOf(std::string_view property, Plant plant, const nlohmann::json& doc = kCase) {
  const auto* p = props::findProperty<T>(property);
  EXPECT_NE(p, nullptr) << property;
  return props::checkDocument(*p, PlantedEngine<T>(plant), doc);
}

// The DOT line of position p.
std::string dotLine(const std::string& dot, std::size_t p) {
  std::size_t start = dot.find(fmt::format("  p{} [label=", p));
  if (start == std::string::npos) return {};
  return dot.substr(start, dot.find('\n', start) - start);
}

// The picture of a failed verdict fills exactly the blamed positions and has a legend saying so.
template <class T>
void expectPictureBlames(const props::Verdict& verdict, const std::set<std::size_t>& blamed,
                         const nlohmann::json& doc = kCase) {
  ASSERT_FALSE(verdict.holds);
  EXPECT_EQ(props::blamedPositions(verdict), blamed) << verdict.why;
  std::string dot = props::formatCaseDot<T>(doc, props::blamedPositions(verdict), props::blameMeaning(verdict));
  for (std::size_t p = 0; p < doc["inputs"].size() + doc["nodes"].size(); ++p)
    EXPECT_EQ(dotLine(dot, p).find("fillcolor") != std::string::npos, blamed.contains(p)) << p << "\n" << dot;
  EXPECT_NE(dot.find("legend [shape=note"), std::string::npos) << dot;
  EXPECT_NE(dot.find("red fill: blamed by the failure: "), std::string::npos) << dot;
}

TEST(Explain, AnAdjointIdentityFailureShowsVJvAndJtSeedAndBlamesTheInput) {
  props::Verdict verdict = verdictOf<Rational>("adjoint_identity", Plant::denseGradient);
  ASSERT_FALSE(verdict.holds);
  // v = [-1, 1/2] at x; the engine's gradient at x is [-1 + 1, -1]: off by one at value 0.
  EXPECT_EQ(verdict.why,
            "<seed, J·v> = -7/2 but <Jᵀ·seed, v> = -9/2 (Jᵀ·seed from planted); input 0: v = [-1 1/2], Jᵀ·seed = [4 -1]; "
            "with it alone moving <seed, J·v> = -7/2 but <Jᵀ·seed, v> = -9/2; position 3: seed = [1], J·v = [-7/2]");
  expectPictureBlames<Rational>(verdict, {0});
  std::string listing = props::formatCaseListing<Rational>(kCase, verdict);
  for (const char* line : {"\n        v                  -1 1/2\n", "\n        Jᵀ·seed (planted)  4 -1   <- blamed\n",
                           "\n        J·v                -7/2\n"})
    EXPECT_NE(listing.find(line), std::string::npos) << line << "\n" << listing;
}

TEST(Explain, OnModPTheAdjointQuantitiesAreResiduesMarkedModP) {
  props::Verdict verdict = verdictOf<ModP>("adjoint_identity", Plant::denseGradient);
  ASSERT_FALSE(verdict.holds);
  EXPECT_NE(verdict.why.find("v = [-1 ≡1/2 (mod p)]"), std::string::npos) << verdict.why;
  EXPECT_NE(verdict.why.find("<Jᵀ·seed, v> = ≡-9/2 (mod p)"), std::string::npos) << verdict.why;
}

// A wrong program behind a node: linear in its cotangent (so the node oracle checks it), with
// 3·ct where its forward 2·x needs 2·ct.
template <class T>
OpaqueDef<T> wrongTwice() {
  OpaqueDef<T> def;
  def.name = "explain_test.wrong_twice";
  def.description = "forward 2·x; its program writes 3·ct into x (wrong on purpose)";
  def.shape = [](std::span<const Shape* const> args) -> Result<Shape> { return *args[0]; };
  def.forward = [](std::span<const Tensor<T>* const> args) {
    return kernels::map(*args[0], [](const T& x) { return Carrier<T>::fromInt(2) * x; });
  };
  def.program = [](const OpaqueProgramCall<T>& call) {
    Pack<T> result;
    for (const Tensor<T>& p : call.prefix) result.push_back(kernels::zeros<T>(p.shape));
    result[call.args[0]] = kernels::map(call.ct, [](const T& g) { return Carrier<T>::fromInt(3) * g; });
    return result;
  };
  return def;
}

const nlohmann::json& wrongOpaqueCase() {
  static const nlohmann::json doc = [] {
    (void)OpaqueRegistry<Rational>::instance().add(wrongTwice<Rational>());
    (void)OpaqueRegistry<Dual<Rational>>::instance().add(wrongTwice<Dual<Rational>>());
    return nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": []}, {"shape": [2]}],
        "nodes": [{"op": "opaque", "args": [1], "attrs": {"name": "explain_test.wrong_twice"}}],
        "values": [["5"], ["1", "2"]]})");
  }();
  return doc;
}

TEST(Explain, ANodeAdjointFailureShowsCtJvVAndTheTermAndBlamesTheNodeAndItsArgument) {
  props::Verdict verdict = props::checkDocument(*props::findProperty<Rational>("node_adjoint_identity"),
                                                builtinEngine<Rational>("compiled"), wrongOpaqueCase());
  ASSERT_FALSE(verdict.holds);
  // ct = [-3/2 0], v = [-1 1/2] at position 1: J·v = 2·v, the term 3·ct.
  EXPECT_EQ(verdict.why,
            "node 2 (opaque explain_test.wrong_twice): <ct, J·v> = 3 but the terms give <Jᵀ·ct, v> = 9/2; "
            "ct = [-3/2 0], J·v = [-2 1]; position 1: v = [-1 1/2], term = [-9/2 0]; "
            "with it alone moving <ct, J·v> = 3 but <term, v> = 9/2")
      << verdict.why;
  expectPictureBlames<Rational>(verdict, {1, 2}, wrongOpaqueCase());
  std::string listing = props::formatCaseListing<Rational>(wrongOpaqueCase(), verdict);
  for (const char* line : {"\n        v               -1 1/2\n", "\n        term of node 2  -9/2 0   <- blamed\n",
                           "\n        ct   -3/2 0   <- blamed\n", "\n        J·v  -2 1\n"})
    EXPECT_NE(listing.find(line), std::string::npos) << line << "\n" << listing;
}

TEST(Explain, TheEnginesNameLabelsItsSideAndTheReferenceTheOther) {
  props::Verdict dense = verdictOf<Rational>("compileChecked_backwardDenseFrom", Plant::denseGradient);
  EXPECT_EQ(dense.why, "dense gradients: planted vs reference: position 0 value 0: 4 vs 3");
  EXPECT_EQ(dense.leftName, "planted");
  EXPECT_EQ(dense.rightName, "reference");
  std::string listing = props::formatCaseListing<Rational>(kCase, dense);
  EXPECT_NE(listing.find("planted    [2] 4 -1   <- differs"), std::string::npos) << listing;
  EXPECT_NE(listing.find("reference  [2] 3 -1"), std::string::npos) << listing;
  props::Verdict context = verdictOf<Rational>("compileChecked_context", Plant::context);
  EXPECT_EQ(context.why, "forward values: planted vs reference: position 3 value 0: 2 vs 1");
}

// Every kind of failure an engine can cause names at least one position, and the picture fills it.
TEST(Explain, EveryKindOfEngineFailureBlamesAPositionInThePicture) {
  expectPictureBlames<Rational>(verdictOf<Rational>("compileChecked_backwardDenseFrom", Plant::denseGradient), {0});
  expectPictureBlames<Rational>(verdictOf<Rational>("compileChecked_backwardDenseFrom_eq_tape", Plant::denseGradient), {0});
  expectPictureBlames<Rational>(verdictOf<Rational>("backwardDenseAllFrom_eq_dense", Plant::denseGradient), {0});
  expectPictureBlames<Rational>(verdictOf<Rational>("backwardDenseAllFrom_eq_dense", Plant::programCount), {3});
  expectPictureBlames<Rational>(verdictOf<Rational>("compileChecked_context", Plant::context), {3});
  props::Verdict refused = verdictOf<Rational>("compileChecked_context", Plant::compileError);
  EXPECT_EQ(refused.why, "planted fails to compile (node 2 (mul): a planted refusal) but the reference's eval succeeds");
  expectPictureBlames<Rational>(refused, {2});
  expectPictureBlames<Rational>(verdictOf<Rational>("determinism", Plant::nondeterministic), {0});
  expectPictureBlames<Rational>(verdictOf<Rational>("adjoint_identity", Plant::denseGradient), {0});
  expectPictureBlames<double>(verdictOf<double>("exact_reference", Plant::denseGradient), {0});
}

// The runtime properties compare tapecheck's own tapes: a difference is blamed on its tape node.
TEST(Explain, ATapeDifferenceIsBlamedOnItsPosition) {
  auto c = *parseCase<Rational>(kCase.dump());
  auto left = lowerGraphDataToTape(c.graph, *c.inputs, c.data);
  auto right = lowerGraphDataToTape(c.graph, *c.inputs, c.data);
  EXPECT_TRUE(props::tapeDifference(left.tape, right.tape).empty());
  right.tape.nodes[2].value[1] = Rational(7);
  props::Mismatch d = props::tapeDifference(left.tape, right.tape);
  EXPECT_EQ(d.text, "tape node 2 (mul): value position 0 value 1: -2 vs 7");
  EXPECT_EQ(d.positions, std::set<std::size_t>{2});
  EXPECT_EQ(props::blamedPositions(props::verdictOf("tapes", d)), std::set<std::size_t>{2});
}

TEST(Explain, AListingDescribesEveryOpaqueProgramUnderItsCall) {
  nlohmann::json doc = nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [2]}],
      "nodes": [{"op": "opaque", "args": [0], "attrs": {"name": "const3"}},
                {"op": "opaque", "args": [1], "attrs": {"name": "twice"}}], "values": [["1", "2"]]})");
  std::string listing = props::formatCaseListing<ModP>(doc);
  EXPECT_NE(listing.find("   1  opaque const3(0)  [2]\n        opaque const3: forward copies x; its program writes 3 into "
                         "every earlier position whatever the cotangent (not linear in it, no certified support)\n"),
            std::string::npos)
      << listing;
  EXPECT_NE(listing.find("   2  opaque twice(1)  [2]\n        opaque twice: forward 2·x; its program writes 2·ct into x"),
            std::string::npos)
      << listing;
  std::string dot = props::formatCaseDot<ModP>(doc);
  EXPECT_NE(dot.find("opaque const3: forward copies x"), std::string::npos) << dot;
  EXPECT_NE(dot.find("red fill: no position is highlighted"), std::string::npos) << dot;
}

TEST(Explain, ListingsShowModPResiduesSymmetricallyAndFractionsMarked) {
  nlohmann::json doc = nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [3]}],
      "nodes": [{"op": "scale", "args": [0], "attrs": {"c": "1/3"}}], "values": [["-1", "2305843009213693950", "1/3"]]})");
  std::string listing = props::formatCaseListing<ModP>(doc);
  EXPECT_NE(listing.find("   1  scale(0) c=≡1/3 (mod p)  [3]"), std::string::npos) << listing;
  EXPECT_NE(listing.find("value  -1 -1 ≡1/3 (mod p)"), std::string::npos) << listing;
  EXPECT_NE(listing.find("value  ≡-1/3 (mod p) ≡-1/3 (mod p) ≡1/9 (mod p)"), std::string::npos) << listing;
}

}  // namespace
}  // namespace tc
