// The reordered engine (examples/reordered_engine): an independent engine that is correct but adds
// in another order than the reference. On exact carriers it must agree with spec::eval and
// spec::backpropAll value for value and pass every engine property; on IEEE carriers it agrees
// bit for bit where every sum is exact, and differs where the order of a sum, of a repeated
// edge's accumulation, or the visit of an unused node changes the rounding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/carriers/rational.h"
#include "core/graph/seed_pack.h"
#include "core/io/case_file.h"
#include "tests/support/engine_cases.h"
#include "core/spec/reference.h"
#include "generators/generate.h"
#include "properties/compare.h"
#include "properties/runner/runner.h"
#include "reordered_engine/reordered_engine.h"

namespace tc {
namespace {

template <class T>
std::unique_ptr<const Execution<T>> compiled(const Case<T>& c) {
  return testing::compiledBy<T>(reordered::Engine<T>(), c);
}

// The error message of a result that should have failed.
template <class R>
std::string errorOf(const R& result) {
  return result ? std::string("(no error)") : result.error().message;
}

template <class T>
void expectSame(std::string_view what, const Pack<T>& reordered, const Pack<T>& reference) {
  props::Verdict same = props::comparePacks(props::Quantity::gradients, what, "reordered", reordered, "reference", reference);
  EXPECT_TRUE(same.holds) << same.why;
}

// Context, dense gradients on the case's seed pack, and the single-output gradients at its
// output, each against the reference.
template <class T>
void expectAgreesWithReference(const std::string& doc) {
  SCOPED_TRACE(std::string(Carrier<T>::name));
  Case<T> c = testing::loadedCase<T>(doc);
  auto execution = compiled(c);
  auto context = spec::eval(c.graph, *c.inputs, c.data);
  ASSERT_TRUE(context) << context.error().message;
  expectSame("context", execution->context(), *context);
  auto dense = execution->backwardDense(c.seeds);
  ASSERT_TRUE(dense) << dense.error().message;
  expectSame("dense gradients", *dense, *spec::backpropAll(c.graph, *c.inputs, c.data, c.seeds));
  const Tensor<T>& seed = c.seeds[c.output];
  auto single = execution->backwardSingle(c.output, seed);
  ASSERT_TRUE(single) << single.error().message;
  EXPECT_FALSE(single->programsRun);
  expectSame("single-output gradients", single->gradients,
             *spec::backpropAll(c.graph, *c.inputs, c.data, singleSeedPack(c.graph, c.output, seed)));
}

// One small case per supported op, with repeated arguments where an op has two; seeds are
// varied (and several positions seeded) so a wrong term or a lost edge shows. Every value is
// dyadic and small, so every sum is exact on double and float too.
struct OpCase {
  std::string name, doc;
};
void PrintTo(const OpCase& c, std::ostream* out) { *out << c.name; }

const std::vector<OpCase>& opCases() {
  static const std::vector<OpCase> cases = {
      {"add", R"({"tapecheck": 1, "inputs": [{"shape": [3]}, {"shape": [3]}], "nodes": [{"op": "add", "args": [0, 1]}],
                 "values": [["1", "-2", "3/4"], ["5", "1/2", "-3"]], "seeds": {"0": ["1", "0", "2"], "2": ["1", "-2", "1/4"]}})"},
      {"add_repeated", R"({"tapecheck": 1, "inputs": [{"shape": [2]}], "nodes": [{"op": "add", "args": [0, 0]}],
                          "values": [["3", "-1/2"]], "seeds": {"0": ["1", "2"], "1": ["1/2", "-3"]}})"},
      {"sub", R"({"tapecheck": 1, "inputs": [{"shape": [2, 2]}, {"shape": [2, 2]}], "nodes": [{"op": "sub", "args": [0, 1]}],
                 "values": [["1", "2", "3", "4"], ["-1", "0", "1/2", "8"]], "seeds": {"2": ["1", "-2", "3", "1/4"]}})"},
      {"sub_repeated", R"({"tapecheck": 1, "inputs": [{"shape": [2]}], "nodes": [{"op": "sub", "args": [0, 0]}],
                          "values": [["3", "-1/2"]], "seeds": {"1": ["5", "-3"]}})"},
      {"mul", R"({"tapecheck": 1, "inputs": [{"shape": [3]}, {"shape": [3]}], "nodes": [{"op": "mul", "args": [0, 1]}],
                 "values": [["2", "-3", "1/2"], ["5", "1/4", "-1"]], "seeds": {"2": ["1", "-2", "3"]}})"},
      {"mul_repeated", R"({"tapecheck": 1, "inputs": [{"shape": [3]}], "nodes": [{"op": "mul", "args": [0, 0]}],
                          "values": [["2", "-3/2", "0"]], "seeds": {"0": ["1", "1", "1"], "1": ["3", "-1", "2"]}})"},
      {"neg_square_scale", R"({"tapecheck": 1, "inputs": [{"shape": [3]}],
                              "nodes": [{"op": "neg", "args": [0]}, {"op": "square", "args": [1]},
                                        {"op": "scale", "args": [2], "attrs": {"c": "-3/2"}}],
                              "values": [["2", "-1/2", "0"]],
                              "seeds": {"1": ["1", "2", "3"], "2": ["-1", "1/2", "4"], "3": ["1", "-2", "1/4"]}})"},
      {"relu", R"({"tapecheck": 1, "inputs": [{"shape": [4]}], "nodes": [{"op": "relu", "args": [0]}],
                  "values": [["-1", "0", "2", "1/2"]], "seeds": {"1": ["1", "2", "3", "4"]}})"},
      {"abs", R"({"tapecheck": 1, "inputs": [{"shape": [3]}], "nodes": [{"op": "abs", "args": [0]}],
                 "values": [["-1", "0", "2"]], "seeds": {"1": ["1", "2", "3"]}})"},
      {"clamp", R"({"tapecheck": 1, "inputs": [{"shape": [5]}],
                   "nodes": [{"op": "clamp", "args": [0], "attrs": {"lo": "-1", "hi": "1"}}],
                   "values": [["-2", "-1", "0", "1", "3"]], "seeds": {"1": ["1", "2", "3", "4", "5"]}})"},
      {"max", R"({"tapecheck": 1, "inputs": [{"shape": [3]}, {"shape": [3]}], "nodes": [{"op": "max", "args": [0, 1]}],
                 "values": [["1", "2", "3"], ["3", "2", "1"]], "seeds": {"2": ["2", "4", "6"]}})"},
      {"max_repeated", R"({"tapecheck": 1, "inputs": [{"shape": [2]}], "nodes": [{"op": "max", "args": [0, 0]}],
                          "values": [["1", "-2"]], "seeds": {"1": ["2", "-6"]}})"},
      {"min", R"({"tapecheck": 1, "inputs": [{"shape": [3]}, {"shape": [3]}], "nodes": [{"op": "min", "args": [0, 1]}],
                 "values": [["1", "2", "3"], ["3", "2", "1"]], "seeds": {"2": ["2", "4", "6"]}})"},
      {"min_repeated", R"({"tapecheck": 1, "inputs": [{"shape": [2]}], "nodes": [{"op": "min", "args": [0, 0]}],
                          "values": [["1", "-2"]], "seeds": {"1": ["2", "-6"]}})"},
      {"sum", R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}], "nodes": [{"op": "sum", "args": [0]}],
                 "values": [["1", "2", "3", "-4", "1/2", "6"]], "seeds": {"1": ["5"]}})"},
      {"mean", R"({"tapecheck": 1, "inputs": [{"shape": [4]}], "nodes": [{"op": "mean", "args": [0]}],
                  "values": [["1", "2", "-3", "1/2"]], "seeds": {"1": ["3"]}})"},
      {"sum_axis", R"({"tapecheck": 1, "inputs": [{"shape": [2, 3, 2]}],
                      "nodes": [{"op": "sum_axis", "args": [0], "attrs": {"axis": 1}}],
                      "values": [["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"]],
                      "seeds": {"1": ["1", "-2", "3", "1/2"]}})"},
      {"dot", R"({"tapecheck": 1, "inputs": [{"shape": [3]}, {"shape": [3]}], "nodes": [{"op": "dot", "args": [0, 1]}],
                 "values": [["1", "2", "3"], ["-1", "1/2", "4"]], "seeds": {"2": ["3"]}})"},
      {"dot_repeated", R"({"tapecheck": 1, "inputs": [{"shape": [3]}], "nodes": [{"op": "dot", "args": [0, 0]}],
                          "values": [["1", "-2", "3"]], "seeds": {"1": ["-1/2"]}})"},
      {"matmul_matrix", R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}, {"shape": [3, 2]}],
                           "nodes": [{"op": "matmul", "args": [0, 1]}],
                           "values": [["1", "2", "3", "4", "5", "6"], ["-1", "2", "1/2", "0", "3", "-2"]],
                           "seeds": {"2": ["1", "2", "-3", "4"]}})"},
      {"matmul_vector", R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}, {"shape": [3]}],
                           "nodes": [{"op": "matmul", "args": [0, 1]}],
                           "values": [["1", "2", "3", "4", "5", "6"], ["-1", "1/2", "2"]], "seeds": {"2": ["1", "-2"]}})"},
      {"matmul_repeated", R"({"tapecheck": 1, "inputs": [{"shape": [2, 2]}], "nodes": [{"op": "matmul", "args": [0, 0]}],
                             "values": [["1", "2", "-3", "1/2"]], "seeds": {"1": ["1", "2", "3", "4"]}})"},
      {"transpose", R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}], "nodes": [{"op": "transpose", "args": [0]}],
                       "values": [["1", "2", "3", "4", "5", "6"]], "seeds": {"1": ["1", "2", "3", "4", "5", "6"]}})"},
      {"linear", R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}, {"shape": [3]}, {"shape": [2]}],
                    "nodes": [{"op": "linear", "args": [0, 1, 2]}],
                    "values": [["1", "2", "3", "4", "5", "6"], ["-1", "1/2", "2"], ["3", "-4"]],
                    "seeds": {"3": ["1", "-2"]}})"},
      {"reshape", R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}],
                     "nodes": [{"op": "reshape", "args": [0], "attrs": {"shape": [3, 2]}}],
                     "values": [["1", "2", "3", "4", "5", "6"]], "seeds": {"1": ["6", "5", "4", "3", "2", "1"]}})"},
      {"broadcast", R"({"tapecheck": 1, "inputs": [{"shape": [2]}],
                       "nodes": [{"op": "broadcast", "args": [0], "attrs": {"shape": [3, 2]}}],
                       "values": [["1", "-2"]], "seeds": {"1": ["1", "2", "3", "4", "5", "6"]}})"},
      {"concat0", R"({"tapecheck": 1, "inputs": [{"shape": [1, 2]}, {"shape": [2, 2]}],
                     "nodes": [{"op": "concat0", "args": [0, 1]}],
                     "values": [["1", "2"], ["3", "4", "5", "6"]], "seeds": {"2": ["1", "2", "3", "4", "5", "6"]}})"},
      {"concat0_repeated", R"({"tapecheck": 1, "inputs": [{"shape": [1, 2]}], "nodes": [{"op": "concat0", "args": [0, 0]}],
                              "values": [["1", "2"]], "seeds": {"1": ["1", "2", "3", "4"]}})"},
      {"slice0", R"({"tapecheck": 1, "inputs": [{"shape": [4, 2]}],
                    "nodes": [{"op": "slice0", "args": [0], "attrs": {"start": 1, "len": 2}}],
                    "values": [["1", "2", "3", "4", "5", "6", "7", "8"]], "seeds": {"1": ["1", "2", "3", "4"]}})"},
      {"const", R"({"tapecheck": 1, "inputs": [{"shape": [2]}],
                   "nodes": [{"op": "const", "attrs": {"shape": [2], "values": ["1/2", "-3"]}}, {"op": "add", "args": [0, 1]}],
                   "values": [["1", "2"]], "seeds": {"1": ["7", "7"], "2": ["1", "-2"]}})"},
      {"detach", R"({"tapecheck": 1, "inputs": [{"shape": [2]}],
                    "nodes": [{"op": "detach", "args": [0]}, {"op": "mul", "args": [1, 0]}],
                    "values": [["3", "-2"]], "seeds": {"2": ["1", "5"]}})"},
      {"mask", R"({"tapecheck": 1, "inputs": [{"shape": [3]}], "data": {"m": {"shape": [3], "values": ["1", "0", "-1/2"]}},
                  "nodes": [{"op": "mask", "args": [0], "attrs": {"key": "m"}}],
                  "values": [["2", "3", "4"]], "seeds": {"1": ["1", "2", "3"]}})"},
      {"gather0", R"({"tapecheck": 1, "inputs": [{"shape": [3, 2]}], "data": {"rows": {"indices": [2, 0, 0, 1]}},
                     "nodes": [{"op": "gather0", "args": [0], "attrs": {"key": "rows"}}],
                     "values": [["1", "2", "3", "4", "5", "6"]], "seeds": {"1": ["1", "2", "3", "4", "5", "6", "7", "8"]}})"},
      {"mse_loss", R"({"tapecheck": 1, "inputs": [{"shape": [4]}, {"shape": [4]}], "nodes": [{"op": "mse_loss", "args": [0, 1]}],
                      "values": [["1", "2", "3", "4"], ["0", "3", "1/2", "4"]], "seeds": {"2": ["3"]}})"},
      // Fan-out, an unused node, seeds at an intermediate position, the output not the last node.
      {"mixed", R"({"tapecheck": 1, "inputs": [{"shape": [2, 3]}, {"shape": [3]}, {"shape": [2]}],
                   "nodes": [{"op": "linear", "args": [0, 1, 2]}, {"op": "relu", "args": [3]}, {"op": "sum", "args": [4]},
                             {"op": "square", "args": [1]}],
                   "values": [["1", "-2", "3", "1/2", "5", "-6"], ["1", "2", "-1"], ["10", "-20"]],
                   "output": 5, "seeds": {"4": ["1/2", "-1"], "5": ["2"]}})"},
  };
  return cases;
}

class ReorderedOps : public ::testing::TestWithParam<OpCase> {};

TEST_P(ReorderedOps, OnExactCarriersAgreesWithTheReference) {
  expectAgreesWithReference<Rational>(GetParam().doc);
  expectAgreesWithReference<RationalNoEq>(GetParam().doc);
}

// Every sum of these cases is exact in binary floating point, so the order cannot show.
TEST_P(ReorderedOps, OnIeeeCarriersAgreesBitForBitWhereEverySumIsExact) {
  expectAgreesWithReference<double>(GetParam().doc);
  expectAgreesWithReference<float>(GetParam().doc);
}

// IEEE special values through the selecting ops (§2.2): abs clears the sign bit, relu(−0) and
// relu(NaN) are +0, max(−0, +0) is −0, an unordered pair is NaN forward and a tie backward,
// clamp passes NaN. No sum mixes values here, so the reordered engine agrees bit for bit.
TEST(ReorderedEngine, OnIeeeCarriersSpecialValuesFollowTheConventions) {
  const std::string doc = R"({"tapecheck": 1, "inputs": [{"shape": [4]}, {"shape": [4]}],
      "nodes": [{"op": "abs", "args": [0]}, {"op": "relu", "args": [0]}, {"op": "max", "args": [0, 1]},
                {"op": "min", "args": [0, 1]}, {"op": "clamp", "args": [0], "attrs": {"lo": "-1", "hi": "1"}},
                {"op": "neg", "args": [1]}],
      "values": [["-0", "nan", "-inf", "2"], ["0", "1", "-inf", "-0"]],
      "seeds": {"2": ["1", "2", "3", "4"], "3": ["-1", "1/2", "1", "2"], "4": ["2", "4", "-8", "1"],
                "5": ["1", "1", "1", "1"], "6": ["3", "-3", "1/4", "1"], "7": ["5", "1", "-2", "0"]}})";
  expectAgreesWithReference<double>(doc);
  expectAgreesWithReference<float>(doc);
}

template <class T>
void expectEveryEnginePropertyHolds(const nlohmann::json& doc) {
  for (const auto& property : props::propertiesFor<T>()) {
    if (property.scope != props::Scope::engine) continue;
    props::Verdict verdict = props::checkDocument(property, reordered::Engine<T>(), doc);
    EXPECT_TRUE(verdict.holds) << property.name << " on " << Carrier<T>::name << ": " << verdict.why;
    // Nothing fails to compile here; the adjoint identity skips cases at a kink (relu at 0, ties).
    EXPECT_NE(verdict.skipped, "domain failure") << property.name << " on " << Carrier<T>::name;
  }
}

// The harness's engine properties (compileChecked_context, compileChecked_backwardDenseFrom, its
// _eq_tape form, backwardDenseAllFrom_eq_dense, determinism, adjoint_identity) on the case as
// written and on fresh random values and seeds for its graph.
TEST_P(ReorderedOps, PassesEveryEnginePropertyOnRational) {
  nlohmann::json doc = nlohmann::json::parse(GetParam().doc);
  expectEveryEnginePropertyHolds<Rational>(doc);
  Case<Rational> loaded = parseCase<Rational>(doc.dump()).value();
  for (std::uint64_t seed = 1; seed <= 5; ++seed)
    expectEveryEnginePropertyHolds<Rational>(caseToJson(gen::withRandomValues<Rational>(loaded, seed)));
}

TEST_P(ReorderedOps, PassesEveryEnginePropertyOnDoubleWhereEverySumIsExact) {
  expectEveryEnginePropertyHolds<double>(nlohmann::json::parse(GetParam().doc));
}

INSTANTIATE_TEST_SUITE_P(EachOp, ReorderedOps, ::testing::ValuesIn(opCases()),
                         [](const ::testing::TestParamInfo<OpCase>& info) { return info.param.name; });

TEST(ReorderedEngine, TheOpCasesCoverEverySupportedOp) {
  for (OpKind kind : reordered::Engine<Rational>::supportedOps()) {
    std::string op = fmt::format(R"("op": "{}")", opName(kind));
    bool covered = std::any_of(opCases().begin(), opCases().end(),
                               [&](const OpCase& c) { return c.doc.find(op) != std::string::npos; });
    EXPECT_TRUE(covered) << opName(kind);
  }
  EXPECT_EQ(reordered::Engine<Rational>::supportedOps().size(), 27u);
}

TEST(ReorderedEngine, PassesEveryEnginePropertyOnGeneratedCasesOfItsOps) {
  reordered::Engine<Rational> engine;
  const EngineProfile profile = reordered::profile();
  props::EngineUnderTest<Rational> subject{engine, props::Policy::bits, profile};
  std::size_t checked = 0;
  for (const auto& property : props::propertiesFor<Rational>()) {
    if (property.scope != props::Scope::engine) continue;
    ++checked;
    props::PropertyRun run = props::runProperty(property, subject, {300, 1});
    EXPECT_EQ(run.cases, 300u);
    EXPECT_EQ(run.unsupported, 0u) << "the generator draws only the profile's ops";
    EXPECT_TRUE(run.passed()) << property.name << ": "
                              << run.whyNotPassed();
  }
  EXPECT_EQ(checked, 9u);  // the five engine theorems, domain_errors, kink_conventions, the adjoint identity and
                          // forward_oracle
}

// (a) Reductions add in reversed index order. Each case has a sum whose left-to-right fold
// rounds (1 + 2^53 is 2^53 on double) where the right-to-left one is exact, or the other way.
struct OrderCase {
  std::string name, doc;
  bool gradient;  //!< compare a gradient (on the case's seed pack), else a forward value
  std::size_t position;
  double reordered, reference;
};
void PrintTo(const OrderCase& c, std::ostream* out) { *out << c.name; }

constexpr double kTwo53 = 9007199254740992.0;
constexpr const char* kCancelling = R"(["1", "9007199254740992", "0", "0", "-9007199254740992"])";

std::string withCancelling(std::string doc) {
  for (std::size_t at; (at = doc.find("V")) != std::string::npos;) doc.replace(at, 1, kCancelling);
  return doc;
}

const std::vector<OrderCase>& orderCases() {
  static const std::vector<OrderCase> cases = {
      {"sum", R"({"tapecheck": 1, "inputs": [{"shape": [5]}], "nodes": [{"op": "sum", "args": [0]}], "values": [V]})",
       false, 1, 1, 0},
      {"mean", R"({"tapecheck": 1, "inputs": [{"shape": [5]}], "nodes": [{"op": "mean", "args": [0]}], "values": [V]})",
       false, 1, 1.0 / 5, 0},
      {"sum_axis", R"({"tapecheck": 1, "inputs": [{"shape": [1, 5]}],
                      "nodes": [{"op": "sum_axis", "args": [0], "attrs": {"axis": 1}}], "values": [V]})",
       false, 1, 1, 0},
      {"dot", R"({"tapecheck": 1, "inputs": [{"shape": [5]}, {"shape": [5]}], "nodes": [{"op": "dot", "args": [0, 1]}],
                 "values": [V, ["1", "1", "1", "1", "1"]]})",
       false, 2, 1, 0},
      {"matmul_vector", R"({"tapecheck": 1, "inputs": [{"shape": [1, 5]}, {"shape": [5]}],
                           "nodes": [{"op": "matmul", "args": [0, 1]}], "values": [V, ["1", "1", "1", "1", "1"]]})",
       false, 2, 1, 0},
      {"matmul_matrix", R"({"tapecheck": 1, "inputs": [{"shape": [1, 5]}, {"shape": [5, 1]}],
                           "nodes": [{"op": "matmul", "args": [0, 1]}], "values": [V, ["1", "1", "1", "1", "1"]]})",
       false, 2, 1, 0},
      {"linear", R"({"tapecheck": 1, "inputs": [{"shape": [1, 5]}, {"shape": [5]}, {"shape": [1]}],
                    "nodes": [{"op": "linear", "args": [0, 1, 2]}], "values": [V, ["1", "1", "1", "1", "1"], ["0"]]})",
       false, 3, 1, 0},
      // Squares 2^54, 1, 1, 1, 1: from the left each 1 is lost next to 2^54; from the right they add up to 4 first.
      {"mse_loss", R"({"tapecheck": 1, "inputs": [{"shape": [5]}, {"shape": [5]}], "nodes": [{"op": "mse_loss", "args": [0, 1]}],
                      "values": [["134217728", "1", "1", "1", "1"], ["0", "0", "0", "0", "0"]]})",
       false, 2, (2 * kTwo53 + 4) / 5, 2 * kTwo53 / 5},
      {"broadcast_backward", R"({"tapecheck": 1, "inputs": [{"shape": []}],
                                "nodes": [{"op": "broadcast", "args": [0], "attrs": {"shape": [5]}}],
                                "values": [["1"]], "seeds": {"1": V}})",
       true, 0, 1, 0},
      {"gather0_backward", R"({"tapecheck": 1, "inputs": [{"shape": [1]}], "data": {"rows": {"indices": [0, 0, 0, 0, 0]}},
                              "nodes": [{"op": "gather0", "args": [0], "attrs": {"key": "rows"}}],
                              "values": [["1"]], "seeds": {"1": V}})",
       true, 0, 1, 0},
      {"matmul_backward_a", R"({"tapecheck": 1, "inputs": [{"shape": [1, 1]}, {"shape": [1, 5]}],
                               "nodes": [{"op": "matmul", "args": [0, 1]}],
                               "values": [["1"], ["1", "1", "1", "1", "1"]], "seeds": {"2": V}})",
       true, 0, 1, 0},
      {"matmul_backward_b", R"({"tapecheck": 1, "inputs": [{"shape": [5, 1]}, {"shape": [1, 1]}],
                               "nodes": [{"op": "matmul", "args": [0, 1]}],
                               "values": [["1", "1", "1", "1", "1"], ["1"]], "seeds": {"2": V}})",
       true, 1, 1, 0},
      {"linear_backward_x", R"({"tapecheck": 1, "inputs": [{"shape": [5, 1]}, {"shape": [1]}, {"shape": [5]}],
                               "nodes": [{"op": "linear", "args": [0, 1, 2]}],
                               "values": [["1", "1", "1", "1", "1"], ["1"], ["0", "0", "0", "0", "0"]], "seeds": {"3": V}})",
       true, 1, 1, 0},
  };
  return cases;
}

class ReorderedSums : public ::testing::TestWithParam<OrderCase> {};

TEST_P(ReorderedSums, OnDoubleAddFromTheLastIndexAndDifferFromTheReference) {
  const OrderCase& order = GetParam();
  Case<double> c = testing::loadedCase<double>(withCancelling(order.doc));
  auto execution = compiled(c);
  Context<double> context = *spec::eval(c.graph, *c.inputs, c.data);
  double reordered, reference;
  if (order.gradient) {
    reordered = (*execution->backwardDense(c.seeds))[order.position][0];
    reference = spec::backpropAllCtx(c.graph, context, c.data, c.seeds)[order.position][0];
  } else {
    reordered = execution->context()[order.position][0];
    reference = context[order.position][0];
  }
  SCOPED_TRACE(fmt::format("position {}: reordered {}, reference {}", order.position, reordered, reference));
  EXPECT_EQ(reordered, order.reordered);
  EXPECT_EQ(reference, order.reference);
  EXPECT_NE(reordered, reference);
}

INSTANTIATE_TEST_SUITE_P(EachReduction, ReorderedSums, ::testing::ValuesIn(orderCases()),
                         [](const ::testing::TestParamInfo<OrderCase>& info) { return info.param.name; });

// The brief's example, spelled out: sum([1, 2^53, 0, 0, -2^53]) is 0 from the left (1 + 2^53
// rounds to 2^53) and 1 from the right (-2^53 + 2^53 cancels before the 1 is added).
TEST(ReorderedEngine, OnDoubleASumOfCancellingTermsIsOneWhereTheReferenceSaysZero) {
  Case<double> c = testing::loadedCase<double>(withCancelling(
      R"({"tapecheck": 1, "inputs": [{"shape": [5]}], "nodes": [{"op": "sum", "args": [0]}], "values": [V]})"));
  double reordered = compiled(c)->context()[1][0];
  double reference = (*spec::eval(c.graph, *c.inputs, c.data))[1][0];
  EXPECT_EQ(reordered, 1.0);
  EXPECT_EQ(reference, 0.0);
}

// (b) add(x, x) with x seeded 2^53 and the output 1: the reference adds the local sum 1 + 1 = 2
// to 2^53 (exact), the reordered engine adds 1 twice and each rounds back to 2^53 (ties to even).
TEST(ReorderedEngine, OnDoubleARepeatedEdgeIsAccumulatedTwiceNotAsALocalSum) {
  Case<double> c = testing::loadedCase<double>(R"({"tapecheck": 1, "inputs": [{"shape": []}], "nodes": [{"op": "add", "args": [0, 0]}],
                                      "values": [["3"]], "seeds": {"0": ["9007199254740992"], "1": ["1"]}})");
  double reordered = (*compiled(c)->backwardDense(c.seeds))[0][0];
  double reference = (*spec::backpropAll(c.graph, *c.inputs, c.data, c.seeds))[0][0];
  EXPECT_EQ(reordered, kTwo53) << "reference " << reference;
  EXPECT_EQ(reference, kTwo53 + 2) << "reordered " << reordered;
}

// (c) A node nobody needs is not visited: mul(x, x) at x = inf gets no seed, so the reference
// runs it on a zero cotangent (0 · inf = NaN into x's gradient) and the reordered engine does not.
TEST(ReorderedEngine, OnDoubleANodeWithoutCotangentIsNotVisited) {
  Case<double> c = testing::loadedCase<double>(R"({"tapecheck": 1, "inputs": [{"shape": []}],
                                      "nodes": [{"op": "mul", "args": [0, 0]}, {"op": "neg", "args": [0]}],
                                      "values": [["inf"]], "output": 2, "seed": ["1"]})");
  auto execution = compiled(c);
  Pack<double> reference = *spec::backpropAll(c.graph, *c.inputs, c.data, c.seeds);
  EXPECT_TRUE(std::isnan(reference[0][0]));
  EXPECT_EQ((*execution->backwardDense(c.seeds))[0][0], -1.0);
  EXPECT_EQ(execution->backwardSingle(2, c.seeds[2])->gradients[0][0], -1.0);
}

// (c) Gradients start at +0: a -0 seed is a zero cotangent, starts nothing, and leaves +0, where
// the reference keeps the seed itself at a position no node follows.
TEST(ReorderedEngine, OnDoubleAPositionNobodyContributesToStaysPositiveZero) {
  Case<double> c = testing::loadedCase<double>(R"({"tapecheck": 1, "inputs": [{"shape": []}], "nodes": [{"op": "neg", "args": [0]}],
                                      "values": [["2"]], "seeds": {"1": ["-0"]}})");
  Pack<double> reordered = *compiled(c)->backwardDense(c.seeds);
  Pack<double> reference = *spec::backpropAll(c.graph, *c.inputs, c.data, c.seeds);
  EXPECT_TRUE(std::signbit(reference[1][0]));
  EXPECT_FALSE(std::signbit(reordered[1][0]));
  EXPECT_EQ(reordered[0][0], 0.0);
  EXPECT_FALSE(std::signbit(reordered[0][0]));
}

// Ops it does not implement fail compile with the position (counting inputs) and the op, though
// the reference evaluates the graph.
template <class T>
void expectUnsupported(const std::string& doc, const std::string& message) {
  Case<T> c = testing::loadedCase<T>(doc);
  ASSERT_TRUE(spec::eval(c.graph, *c.inputs, c.data));
  auto execution = reordered::Engine<T>().compile(c.graph, *c.inputs, c.data);
  ASSERT_FALSE(execution);
  EXPECT_EQ(execution.error().message, message);
}

TEST(ReorderedEngine, AnUnsupportedOpFailsCompileNamingItsPositionAndOp) {
  expectUnsupported<double>(R"({"tapecheck": 1, "inputs": [{"shape": [2]}],
      "nodes": [{"op": "neg", "args": [0]}, {"op": "relu", "args": [1]}, {"op": "square", "args": [2]}, {"op": "exp", "args": [3]}],
      "values": [["1", "2"]]})",
                            "node 4 (exp): not supported by the reordered engine");
  expectUnsupported<Rational>(R"({"tapecheck": 1, "inputs": [{"shape": []}, {"shape": []}],
      "nodes": [{"op": "div", "args": [0, 1]}], "values": [["1"], ["2"]]})",
                              "node 2 (div): not supported by the reordered engine");
  expectUnsupported<Rational>(R"({"tapecheck": 1, "inputs": [{"shape": [2]}],
      "nodes": [{"op": "opaque", "args": [0], "attrs": {"name": "twice"}}], "values": [["1", "2"]]})",
                              "node 1 (opaque twice): not supported by the reordered engine");
  EXPECT_FALSE(reordered::isSupported(OpKind::inv));
  EXPECT_FALSE(reordered::isSupported(OpKind::softmax_last));
}

// Malformed inputs, data, seed packs and output seeds fail with the built-in engines' messages
// (core/graph/pack_checks.h).
TEST(ReorderedEngine, MalformedInputsAndSeedsFailLikeTheBuiltinEngines) {
  Case<Rational> c = testing::loadedCase<Rational>(opCases()[0].doc);  // add of two [3] vectors
  const Engine<Rational>& builtin = builtinEngine<Rational>("compiled");
  reordered::Engine<Rational> engine;
  Pack<Rational> oneInput{(*c.inputs)[0]};
  EXPECT_EQ(errorOf(engine.compile(c.graph, oneInput, c.data)), "the graph has 2 inputs, 1 were given");
  EXPECT_EQ(errorOf(engine.compile(c.graph, oneInput, c.data)), errorOf(builtin.compile(c.graph, oneInput, c.data)));
  Data<Rational> extraData{{"m", Tensor<Rational>::filled(Shape{1}, Rational(1))}};
  EXPECT_EQ(errorOf(engine.compile(c.graph, *c.inputs, extraData)), errorOf(builtin.compile(c.graph, *c.inputs, extraData)));

  auto ours = compiled(c);
  auto theirs = *builtin.compile(c.graph, *c.inputs, c.data);
  Pack<Rational> shortPack(c.seeds.begin(), c.seeds.end() - 1);
  Pack<Rational> misshapen = c.seeds;
  misshapen[1] = Tensor<Rational>::filled(Shape{2}, Rational(1));
  for (const Pack<Rational>& seeds : {Pack<Rational>{}, shortPack, misshapen}) {
    std::string error = errorOf(ours->backwardDense(seeds));
    EXPECT_NE(error, "(no error)");
    EXPECT_EQ(error, errorOf(theirs->backwardDense(seeds)));
  }
  Tensor<Rational> scalarSeed = Tensor<Rational>::filled(Shape{}, Rational(1));
  for (std::size_t output : {std::size_t{2}, std::size_t{3}}) {
    std::string error = errorOf(ours->backwardSingle(output, scalarSeed));
    EXPECT_NE(error, "(no error)");
    EXPECT_EQ(error, errorOf(theirs->backwardSingle(output, scalarSeed)));
  }
}

}  // namespace
}  // namespace tc

namespace tc {
namespace {

// Issue 11's promise, on an engine that is correct but sums in another order: exact in the exact
// domain, and in the default domain the differences survey mode finds are those of order.
template <class T>
class ReorderedOnIeee : public ::testing::Test {};
using IeeeCarriers = ::testing::Types<double, float>;
TYPED_TEST_SUITE(ReorderedOnIeee, IeeeCarriers);

TYPED_TEST(ReorderedOnIeee, PassesEveryEnginePropertyInTheExactDomainUnderValues) {
  using T = TypeParam;
  reordered::Engine<T> engine;
  const EngineProfile profile = reordered::profile();
  testing::expectEveryEnginePropertyPassesInTheExactDomain<T>({engine, props::Policy::values, profile}, 300, 250);
}

TYPED_TEST(ReorderedOnIeee, FailsTheDefaultDomainUnderBitsWithOrderDifferencesTheSurveyClassifies) {
  using T = TypeParam;
  reordered::Engine<T> engine;
  const EngineProfile profile = reordered::profile();
  props::EngineUnderTest<T> subject{engine, props::Policy::bits, profile};
  props::RunSettings settings{1000, 1};
  settings.survey = true;
  std::map<std::string, std::size_t> byClass;
  for (const char* name : {"compileChecked_context", "compileChecked_backwardDenseFrom"}) {
    props::PropertyRun result = props::runProperty(*props::findProperty<T>(name), subject, settings);
    EXPECT_FALSE(result.passed()) << name;
    for (const props::FailureKind& kind : result.kinds) {
      byClass[kind.difference] += kind.cases;
    }
  }
  std::size_t ulps = 0;
  for (const auto& [difference, cases] : byClass) ulps += difference.starts_with("within") ? cases : 0;
  EXPECT_GT(ulps, 0u) << "a summation-order difference: a few ulp";
}

}  // namespace
}  // namespace tc
