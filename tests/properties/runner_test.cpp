// The runner's bookkeeping: a row that compared nothing fails with a reason; cases with ops the
// engine's profile does not support are counted, not run, and not generated; comparison
// policies; and survey mode, which tallies failures by op and class of difference.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "core/carriers/rational.h"
#include "core/spec/exactness.h"
#include "core/spec/reference.h"
#include "properties/oracles/determinism.h"
#include "properties/runner/report.h"
#include "properties/runner/runner.h"
#include "properties/runner/runner.hpp"
#include "tests/properties/rewritten_context_engine.h"

namespace tc {
namespace {

// Compiles nothing: every compile fails with the same message.
template <class T>
class RefusingEngine final : public Engine<T> {
 public:
  std::string_view name() const override { return "refusing"; }
  Result<std::unique_ptr<const Execution<T>>> compile(const Graph<T>&, const Pack<T>&, const Data<T>&) const override {
    return fail("this engine compiles nothing");
  }
};

// The reference forward context with two planted differences: every `sum` node one ulp high, and
// every zero a relu produces negative.
testing::RewrittenContextEngine NudgingEngine() {
  return {"nudging", [](const Graph<double>& graph, Context<double>& context) {
            for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
              for (double& v : context[p].values) {
                if (graph.nodeAt(p).op == OpKind::sum) v = std::nextafter(v, std::numeric_limits<double>::infinity());
                if (graph.nodeAt(p).op == OpKind::relu && v == 0) v = -0.0;
              }
          }};
}

nlohmann::json caseWithExp() {
  return nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [2]}],
      "nodes": [{"op": "exp", "args": [0]}, {"op": "add", "args": [1, 0]}], "values": [["1", "2"]]})");
}

TEST(Health, ARowInWhichEveryCaseIsSkippedComparedNothingAndFails) {
  const auto* property = props::findProperty<double>("compileChecked_backwardDenseFrom");
  ASSERT_NE(property, nullptr);
  props::PropertyRun run = props::runProperty(*property, RefusingEngine<double>(), {20, 1});
  EXPECT_FALSE(run.failure) << "no case failed";
  EXPECT_EQ(run.skipped, 20u);
  EXPECT_EQ(run.compared(), 0u);
  EXPECT_FALSE(run.passed());
  EXPECT_EQ(run.nothingCompared(), "nothing compared: 20 of 20 cases (20 skipped: domain failure)");
  EXPECT_EQ(run.whyNotPassed(), run.nothingCompared());
}

// The oracles that look at nodes compare nothing on a graph without one: skipped, not passed.
TEST(Health, NodeOraclesOnAGraphWithoutNodesCompareNothing) {
  nlohmann::json inputsOnly = nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [2]}], "values": [["1", "2"]]})");
  for (const char* name : {"linearity", "node_adjoint_identity"}) {
    props::PropertyRun run = props::runPropertyOn(*props::findProperty<Rational>(name), builtinEngine<Rational>("compiled"),
                                                  3, [&](std::size_t) { return props::SourcedCase<Rational>{inputsOnly, {}}; });
    EXPECT_FALSE(run.passed()) << name;
    EXPECT_EQ(run.compared(), 0u) << name;
    EXPECT_NE(run.nothingCompared().find("no"), std::string::npos) << run.nothingCompared();
  }
}

TEST(Health, ARowThatComparedSomethingReportsHowMany) {
  const auto* property = props::findProperty<Rational>("adjoint_identity");
  ASSERT_NE(property, nullptr);
  props::PropertyRun run = props::runProperty(*property, builtinEngine<Rational>("compiled"), {50, 1});
  EXPECT_TRUE(run.passed());
  EXPECT_GT(run.skipped, 0u) << "kinks and domain failures are skipped";
  EXPECT_EQ(run.compared(), run.cases - run.skipped);
  EXPECT_EQ(run.nothingCompared(), "");
  // The cases it did not compare are counted with their reasons, as a table row prints them.
  std::size_t counted = 0;
  for (const auto& [reason, count] : run.skipReasons) {
    EXPECT_NE(run.partlyCompared().find(fmt::format("{} skipped: {}", count, reason)), std::string::npos) << run.partlyCompared();
    counted += count;
  }
  EXPECT_EQ(counted, run.skipped);
  EXPECT_EQ(run.partlyCompared().rfind(fmt::format("{} of {} cases not compared (", run.skipped, run.cases), 0), 0u)
      << run.partlyCompared();
}

TEST(Health, ARowThatComparedEveryCaseOrNoneHasNoPartialCount) {
  props::PropertyRun all;
  all.cases = 5;
  EXPECT_EQ(all.partlyCompared(), "");
  props::PropertyRun none = all;
  none.skipped = 5, none.skipReasons["domain failure"] = 5;
  EXPECT_EQ(none.partlyCompared(), "") << "nothingCompared says why";
  props::PropertyRun some = none;
  some.skipped = 2, some.skipReasons["domain failure"] = 2, some.unsupported = 1, some.unsupportedOps["exp"] = 1;
  EXPECT_EQ(some.partlyCompared(), "3 of 5 cases not compared (2 skipped: domain failure, 1 unsupported: op exp)");
}

TEST(Profiles, ACaseWithAnUnsupportedOpIsCountedNotRun) {
  EngineProfile profile;
  profile.name = "no-exp";
  profile.ops["double"] = {OpKind::add, OpKind::mul, OpKind::neg, OpKind::constant};
  const auto* property = props::findProperty<double>("compileChecked_context");
  const RefusingEngine<double> refusing;  // named: the subject refers to it
  props::EngineUnderTest<double> subject{refusing, props::Policy::bits, profile};
  props::Verdict verdict = props::checkDocument(*property, subject, caseWithExp());
  EXPECT_TRUE(verdict.holds);
  EXPECT_EQ(verdict.unsupported, "exp");
  // A run of such cases compares nothing, and says so.
  props::PropertyRun run = props::runPropertyOn(*property, subject, 4, [](std::size_t) { return props::SourcedCase<double>{caseWithExp(), {}}; });
  EXPECT_EQ(run.unsupported, 4u);
  EXPECT_FALSE(run.passed());
  EXPECT_EQ(run.nothingCompared(), "nothing compared: 4 of 4 cases (4 unsupported: op exp)");
}

TEST(Profiles, ACarrierTheProfileDoesNotListIsUnsupported) {
  EngineProfile profile;
  profile.carriers = {"double"};
  const auto* property = props::findProperty<Rational>("compileChecked_context");
  nlohmann::json doc = nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [1]}], "values": [["1"]],
      "nodes": [{"op": "neg", "args": [0]}]})");
  props::Verdict verdict = props::checkDocument(
      *property, props::EngineUnderTest<Rational>{builtinEngine<Rational>("compiled"), props::Policy::bits, profile}, doc);
  EXPECT_TRUE(verdict.holds);
  EXPECT_EQ(verdict.unsupported, "(carrier rational)");
  // Runtime-scoped properties check tapecheck's own layers: the engine's profile plays no part.
  props::Verdict runtime = props::checkDocument(
      *props::findProperty<Rational>("ofGraph_toTape"),
      props::EngineUnderTest<Rational>{builtinEngine<Rational>("compiled"), props::Policy::bits, profile}, doc);
  EXPECT_TRUE(runtime.holds && runtime.unsupported.empty());
  EXPECT_TRUE(props::checkDocument(*props::findProperty<double>("compileChecked_context"),
                                   props::EngineUnderTest<double>{builtinEngine<double>("compiled"), props::Policy::bits,
                                                                  profile},
                                   doc)
                  .unsupported.empty());
}

TEST(Profiles, GeneratedCasesUseOnlyTheProfilesOps) {
  EngineProfile profile;
  const std::vector<OpKind> allowed{OpKind::add, OpKind::mul, OpKind::matmul, OpKind::sum, OpKind::relu};
  profile.ops["double"] = allowed;
  const auto* property = props::findProperty<double>("compileChecked_context");
  props::EngineUnderTest<double> subject{builtinEngine<double>("compiled"), props::Policy::bits, profile};
  props::PropertyRun run = props::runProperty(*property, subject, {200, 4});
  EXPECT_TRUE(run.passed()) << run.nothingCompared();
  EXPECT_EQ(run.unsupported, 0u);
  std::set<OpKind> seen;
  for (std::size_t i = 0; i < 200; ++i) {
    gen::CaseOptions options{allowed};
    auto loaded = parseCase<double>(gen::randomCase<double>(i, 100, options).dump());
    ASSERT_TRUE(loaded);
    for (const auto& node : loaded->graph.nodes) seen.insert(node.op);
  }
  EXPECT_EQ(seen, std::set<OpKind>(allowed.begin(), allowed.end())) << "every allowed op, and no other";
}

TEST(Policies, BitsTellsSignedZerosApartAndValuesDoesNot) {
  Pack<double> plus{Tensor<double>({2}, {0.0, 1.0})}, minus{Tensor<double>({2}, {-0.0, 1.0})};
  props::Verdict bits = props::comparePacks(props::Quantity::forwardValues, "", "a", plus, "b", minus);
  EXPECT_FALSE(bits.holds);
  EXPECT_EQ(props::kDifferenceClasses[*bits.differenceClass], "signed zero");
  EXPECT_TRUE(props::comparePacks(props::Quantity::forwardValues, "", "a", plus, "b", minus, props::Policy::values).holds);
  // Any NaN equals any NaN under both; a NaN against a number differs under both.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Pack<double> nans{Tensor<double>({1}, {nan})}, other{Tensor<double>({1}, {-nan})}, number{Tensor<double>({1}, {1.0})};
  for (props::Policy policy : {props::Policy::bits, props::Policy::values}) {
    EXPECT_TRUE(props::comparePacks(props::Quantity::gradients, "", "a", nans, "b", other, policy).holds);
    props::Verdict v = props::comparePacks(props::Quantity::gradients, "", "a", nans, "b", number, policy);
    EXPECT_FALSE(v.holds);
    EXPECT_EQ(props::kDifferenceClasses[*v.differenceClass], "NaN");
  }
}

TEST(Policies, DifferencesAreClassifiedByTheirDistanceInUlp) {
  auto classOf = [](double a, double b) { return std::string(props::kDifferenceClasses[props::differenceClass(a, b)]); };
  const double one = 1.0, up = std::nextafter(1.0, 2.0);
  EXPECT_EQ(classOf(one, up), "within 1 ulp");
  EXPECT_EQ(classOf(-0.0, 0.0), "signed zero");
  EXPECT_EQ(classOf(std::nextafter(0.0, 1.0), -std::nextafter(0.0, 1.0)), "within 4 ulp") << "across zero";
  EXPECT_EQ(classOf(one, one + 4 * (up - one)), "within 4 ulp");
  EXPECT_EQ(classOf(one, one + 5 * (up - one)), "within 16 ulp");
  EXPECT_EQ(classOf(one, 2.0), "other");
  EXPECT_EQ(classOf(one, std::numeric_limits<double>::infinity()), "other");
  EXPECT_EQ(std::string(props::kDifferenceClasses[props::differenceClass(1.0f, std::nextafter(1.0f, 2.0f))]),
            "within 1 ulp");
  EXPECT_EQ(std::string(props::kDifferenceClasses[props::differenceClass(Rational(1), Rational(2))]), "other");
}

// Two planted differences, each found as its own kind with a small example; the run goes on past
// the first failure.
TEST(Survey, TalliesFailuresByOpAndClassWithOneShrunkExampleEach) {
  const auto* property = props::findProperty<double>("compileChecked_context");
  props::RunSettings settings{300, 2};
  settings.survey = true;
  props::PropertyRun run = props::runProperty(*property, NudgingEngine(), settings);
  EXPECT_FALSE(run.passed());
  EXPECT_EQ(run.cases, 300u) << "a survey does not stop at the first failure";
  std::map<std::pair<std::string, std::string>, std::size_t> kinds;
  std::size_t tallied = 0;
  for (const props::FailureKind& kind : run.kinds) {
    kinds[{kind.op, kind.difference}] = kind.cases;
    tallied += kind.cases;
    EXPECT_LE(kind.example.shrunk["nodes"].size(), 3u) << kind.op << " " << kind.difference;
    auto shrunk = parseCase<double>(kind.example.shrunk.dump());
    ASSERT_TRUE(shrunk);
    EXPECT_EQ(props::blamedOp(*shrunk, kind.example.verdict), kind.op) << "the example keeps its kind";
  }
  EXPECT_EQ(tallied, run.failed);
  EXPECT_GT((kinds[{"sum", "within 1 ulp"}]), 0u);
  EXPECT_GT((kinds[{"relu", "signed zero"}]), 0u);
  // Under `values` the signed zeros are equal: only the sums remain (a nudged NaN or infinity
  // stays itself, so no other class appears).
  settings.survey = true;
  props::PropertyRun byValue =
      props::runProperty(*property, props::EngineUnderTest<double>{NudgingEngine(), props::Policy::values}, settings);
  for (const props::FailureKind& kind : byValue.kinds) EXPECT_EQ(kind.op, "sum") << kind.difference;
  EXPECT_FALSE(byValue.kinds.empty());
}

// One op's forward differences and its gradients' are two kinds, each with its own example; the
// survey table names the second ∂op.
TEST(Survey, AnOpsForwardAndBackwardDifferencesAreTwoKinds) {
  props::Verdict forward = props::Verdict::fail("planted");
  forward.differenceClass = 2;
  props::Verdict backward = forward;
  backward.quantity = props::Quantity::gradients;
  EXPECT_EQ(props::differenceIn(forward), "forward");
  EXPECT_EQ(props::differenceIn(backward), "backward");
  EXPECT_EQ(props::differenceIn(props::Verdict::fail("no values compared")), "");
  props::PropertyRun run;
  run.kinds.push_back({"exp", "forward", "within 4 ulp", 1, {}});
  EXPECT_EQ(props::detail::knownKind(run, "exp", "backward", "within 4 ulp"), nullptr);
  run.kinds.push_back({"exp", "backward", "within 4 ulp", 1, {}});
  ASSERT_NE(props::detail::knownKind(run, "exp", "forward", "within 4 ulp"), nullptr);
  EXPECT_EQ(run.kinds[0].cases, 2u);
  EXPECT_EQ(run.kinds[1].cases, 1u);
  std::string table = props::formatSurveyLines("accuracy", "double", run, {"a.json", "b.json"});
  EXPECT_NE(table.find(" exp                within 4 ulp          2  a.json"), std::string::npos) << table;
  EXPECT_NE(table.find(" ∂exp               within 4 ulp          1  b.json"), std::string::npos) << table;
}

// A forward difference starts at its first differing node; a gradient difference at its last
// differing position, caused by what feeds cotangent into it.
TEST(Survey, BlamesTheOpWhereADifferenceStarts) {
  auto c = parseCase<double>(R"({"tapecheck": 1, "inputs": [{"shape": [2]}],
      "nodes": [{"op": "relu", "args": [0]}, {"op": "neg", "args": [0]}, {"op": "sum", "args": [1]}],
      "values": [["1", "2"]]})");
  ASSERT_TRUE(c);
  props::Verdict verdict = props::Verdict::fail("planted");
  verdict.differences = {{1, "", ""}, {3, "", ""}};
  EXPECT_EQ(props::blamedOp(*c, verdict), "relu");
  verdict.quantity = props::Quantity::gradients;
  EXPECT_EQ(props::blamedOp(*c, verdict), "seed") << "nothing feeds the last position";
  verdict.differences = {{0, "", ""}, {1, "", ""}};
  EXPECT_EQ(props::blamedOp(*c, verdict), "sum");
  verdict.differences = {{0, "", ""}};
  EXPECT_EQ(props::blamedOp(*c, verdict), "neg") << "the highest of relu and neg, which feed position 0";
  verdict.differences.clear();
  EXPECT_EQ(props::blamedOp(*c, verdict), "-");
}

// A counterexample found in the exact domain shrinks within it.
TEST(Survey, ShrinkingStaysInTheExactDomain) {
  const auto* property = props::findProperty<double>("compileChecked_context");
  props::RunSettings settings{300, 2};
  settings.survey = true;
  settings.domain = gen::Domain::exact;
  props::PropertyRun run = props::runProperty(*property, NudgingEngine(), settings);
  ASSERT_FALSE(run.kinds.empty());
  for (const props::FailureKind& kind : run.kinds) {
    auto shrunk = parseCase<double>(kind.example.shrunk.dump());
    ASSERT_TRUE(shrunk);
    EXPECT_TRUE(spec::checkExactDomain(shrunk->graph, *shrunk->inputs, shrunk->data, shrunk->seeds))
        << kind.example.shrunk.dump();
  }
  // A pack longer than the graph is blamed on no op, not read past the graph.
  auto c = parseCase<double>(R"({"tapecheck": 1, "inputs": [{"shape": [1]}], "values": [["1"]]})");
  props::Verdict verdict = props::Verdict::fail("planted");
  verdict.differences = {{1, "", "(missing)"}};
  EXPECT_EQ(props::blamedOp(*c, verdict), "-");
}

TEST(Survey, WithoutSurveyARunStopsAtTheFirstFailure) {
  const auto* property = props::findProperty<double>("compileChecked_context");
  props::PropertyRun run = props::runProperty(*property, NudgingEngine(), {300, 2});
  ASSERT_TRUE(run.failure);
  EXPECT_EQ(run.failed, 1u);
  EXPECT_EQ(run.whyNotPassed(), run.failure->verdict.why + "\n" + run.failure->shrunk.dump());
  EXPECT_LT(run.cases, 300u);
  EXPECT_TRUE(run.kinds.empty());
}

// The shrinker checks its own work (docs/semantics.md §3.7). A case whose document does not say
// everything the loaded case holds (here its conventions, which no document carries) shrinks to a
// case that passes when read back: that is tapecheck's fault, reported with the case as generated.
props::Verdict failsUnderOtherConventions(const Case<Rational>& c) {
  return c.graph.conventions == Conventions{} ? props::Verdict::pass() : props::Verdict::fail("planted: conventions not the spec's");
}

TEST(Shrinking, ACaseThatPassesWhenItsDocumentIsReadBackIsTheShrinkersFault) {
  const props::NamedProperty<Rational> property{
      "planted", props::Scope::runtime,
      [](const props::EngineUnderTest<Rational>&, const Case<Rational>& c) { return failsUnderOtherConventions(c); }};
  auto loaded = parseCase<Rational>(R"({"tapecheck": 1, "inputs": [{"shape": [2]}],
      "nodes": [{"op": "neg", "args": [0]}, {"op": "add", "args": [1, 0]}], "values": [["1", "2"]]})");
  ASSERT_TRUE(loaded) << loaded.error().message;
  loaded->graph.conventions.nanPropagates = true;
  props::PropertyRun run = props::runPropertyOn<Rational>(
      property, builtinEngine<Rational>("reference"), 1,
      [&](std::size_t) { return props::SourcedCase<Rational>{nullptr, *loaded}; });
  ASSERT_TRUE(run.failure);
  EXPECT_EQ(run.failure->shrinkerFault, "the shrunk case passes when its document is read back");
  EXPECT_EQ(run.failure->shrunk, run.failure->original) << "the case as generated, unshrunk";
  EXPECT_EQ(run.failure->verdict.why, "planted: conventions not the spec's");
  EXPECT_FALSE(run.passed());
}

// An engine whose answers change between two runs of one case: the failure stands, on the case as
// generated, and says so; the shrinker is not blamed.
TEST(Shrinking, AnEngineWhoseAnswersChangeKeepsTheCaseAsGenerated) {
  auto nudgesLeft = std::make_shared<int>(3);  // the first three compiles of a graph with a sum
  testing::RewrittenContextEngine changing("changing", [nudgesLeft](const Graph<double>& graph, Context<double>& context) {
    bool hasSum = std::ranges::any_of(graph.nodes, [](const Node<double>& n) { return n.op == OpKind::sum; });
    if (!hasSum || *nudgesLeft == 0) return;
    --*nudgesLeft;
    for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
      if (graph.nodeAt(p).op == OpKind::sum)
        for (double& v : context[p].values) v = std::nextafter(v, std::numeric_limits<double>::infinity());
  });
  const auto* property = props::findProperty<double>("compileChecked_context");
  props::PropertyRun run = props::runProperty(*property, changing, {300, 2});
  ASSERT_TRUE(run.failure);
  EXPECT_TRUE(run.failure->shrinkerFault.empty());
  EXPECT_EQ(run.failure->shrunk, run.failure->original);
  EXPECT_NE(run.failure->verdict.why.find("the engine's answers changed"), std::string::npos) << run.failure->verdict.why;
  EXPECT_EQ(*nudgesLeft, 0);
}

// A correct engine's failure shrinks, and its shrunk document fails again when read back.
TEST(Shrinking, ATrustedCounterexampleFailsAgainFromItsDocument) {
  const auto* property = props::findProperty<double>("compileChecked_context");
  props::PropertyRun run = props::runProperty(*property, NudgingEngine(), {300, 2});
  ASSERT_TRUE(run.failure);
  EXPECT_TRUE(run.failure->shrinkerFault.empty());
  EXPECT_GT(run.failure->shrinkSteps, 0u);
  auto reread = parseCase<double>(run.failure->shrunk.dump());
  ASSERT_TRUE(reread);
  EXPECT_FALSE(props::checkLoadedCase(*property, NudgingEngine(), *reread).holds);
}

// Gives no result for any graph with an exp node (as an engine that hangs on exp: a process engine
// throws EngineFault on its timeout), counting those; the compiled engine otherwise.
class FaultingOnExp final : public Engine<double> {
 public:
  std::string_view name() const override { return "faulting on exp"; }
  Result<std::unique_ptr<const Execution<double>>> compile(const Graph<double>& graph, const Pack<double>& inputs,
                                                           const Data<double>& data) const override {
    if (std::ranges::any_of(graph.nodes, [](const Node<double>& n) { return n.op == OpKind::exp; })) {
      ++faults;
      throw EngineFault("no answer in 10 s");
    }
    return builtinEngine<double>("compiled").compile(graph, inputs, data);
  }
  mutable std::size_t faults = 0;
};

// Two rows on an engine that faults on exp; the faults each row cost, and its counterexample.
struct TwoFaultingRows {
  std::size_t firstFaults, secondFaults;
  props::Counterexample first, second;
};

TwoFaultingRows twoFaultingRows(props::FaultedCases* memory) {
  FaultingOnExp engine;
  props::EngineUnderTest<double> subject(engine);
  subject.faultedCases = memory;
  TwoFaultingRows rows{};
  props::PropertyRun first = props::runProperty(*props::findProperty<double>("compileChecked_context"), subject, {100, 1});
  rows.firstFaults = engine.faults;
  props::PropertyRun second =
      props::runProperty(*props::findProperty<double>("compileChecked_backwardDenseFrom"), subject, {100, 1});
  rows.secondFaults = engine.faults - rows.firstFaults;
  if (first.failure) rows.first = *first.failure;
  if (second.failure) rows.second = *second.failure;
  return rows;
}

// Shrinking a hang waits out a timeout at every step: a row whose case faults starts from the case
// an earlier row's fault shrank to, when that faults here too, and so takes fewer such steps.
TEST(Shrinking, ARowWhoseCaseFaultsStartsFromTheCaseAnEarlierRowsFaultShrankTo) {
  props::FaultedCases memory;
  TwoFaultingRows remembered = twoFaultingRows(&memory);
  ASSERT_TRUE(remembered.first.verdict.engineFault) << remembered.first.verdict.why;
  ASSERT_TRUE(remembered.second.verdict.engineFault) << remembered.second.verdict.why;
  EXPECT_EQ(remembered.first.startedFrom, "");
  EXPECT_EQ(remembered.second.startedFrom, "a case the engine faulted on in an earlier row");
  EXPECT_EQ(remembered.second.shrunk, remembered.first.shrunk);
  EXPECT_NE(remembered.second.original, remembered.second.shrunk) << "the row's own case stays its original";
  EXPECT_EQ(memory.newestFirst(), std::vector<nlohmann::json>{remembered.first.shrunk});
  // Its own case, the earlier one, and the shrunk document read back: nothing else faults.
  EXPECT_EQ(remembered.secondFaults, 3u);

  TwoFaultingRows alone = twoFaultingRows(nullptr);
  EXPECT_EQ(alone.second.startedFrom, "");
  EXPECT_GT(alone.secondFaults, remembered.secondFaults) << "shrinking the row's own case faults at every step";
  EXPECT_EQ(alone.first.shrunk, remembered.first.shrunk);
}

TEST(FaultedCases, KeepTheNewestFewOnceEach) {
  props::FaultedCases memory;
  for (int i = 0; i < 6; ++i) memory.remember(nlohmann::json{{"n", i}});
  memory.remember(nlohmann::json{{"n", 3}});
  EXPECT_EQ(memory.newestFirst(), (std::vector<nlohmann::json>{{{"n", 3}}, {{"n", 5}}, {{"n", 4}}, {{"n", 2}}}));
  static_assert(props::FaultedCases::kKept == 4);
}

// A remembered case that passes on a later row is not where it starts.
TEST(Shrinking, ACaseThatDoesNotFaultOnThisRowIsNotWhereItStarts) {
  props::FaultedCases memory;
  memory.remember(nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [1]}],
      "nodes": [{"op": "neg", "args": [0]}], "values": [["1"]]})"));
  TwoFaultingRows rows = twoFaultingRows(&memory);
  ASSERT_TRUE(rows.first.verdict.engineFault);
  EXPECT_EQ(rows.first.startedFrom, "");
  EXPECT_EQ(rows.second.startedFrom, "a case the engine faulted on in an earlier row");
  EXPECT_EQ(memory.newestFirst().size(), 2u);
}

}  // namespace
}  // namespace tc

namespace tc::props {
namespace {

TEST(Determinism, InterleavesEveryPositionOfASmallGraphAndAnEvenSpreadOfALargeOne) {
  EXPECT_EQ(interleavedPositions(4), (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(interleavedPositions(kInterleavedPasses).size(), kInterleavedPasses);
  std::vector<std::size_t> spread = interleavedPositions(2001);
  ASSERT_EQ(spread.size(), kInterleavedPasses);
  EXPECT_EQ(spread.front(), 0u);
  EXPECT_EQ(spread.back(), 2000u);
  EXPECT_TRUE(std::is_sorted(spread.begin(), spread.end()) &&
              std::adjacent_find(spread.begin(), spread.end()) == spread.end());
}

}  // namespace
}  // namespace tc::props
