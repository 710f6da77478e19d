// The domain oracles (docs/semantics.md §3.2): domain_errors holds an engine to the domain table —
// it must refuse exactly where the first node leaves its op's domain, naming that node as the
// specification does — and index_bounds holds the loader to the bounds of index lists.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/graph/node_program.h"
#include "properties/runner/all.h"
#include "properties/oracles/domain_errors.h"
#include "properties/oracles/index_bounds.h"
#include "properties/runner/runner.h"
#include "tests/properties/rewritten_context_engine.h"

namespace tc {
namespace {

// An engine without domain checks: every node forwarded unchecked (log(NaN) = NaN, 1/0 = inf).
class UncheckedEngine final : public Engine<double> {
 public:
  std::string_view name() const override { return "unchecked"; }
  Result<std::unique_ptr<const Execution<double>>> compile(const Graph<double>& graph, const Pack<double>& inputs,
                                                           const Data<double>& data) const override {
    Context<double> context(inputs.begin(), inputs.end());
    for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
      context.push_back(forwardAt(graph, std::span<const Tensor<double>>(context), data, p));
    return std::make_unique<const testing::RewrittenContextExecution>(std::move(context));
  }
};

// The compiled engine with its error messages rewritten.
class RenamingEngine final : public Engine<double> {
 public:
  explicit RenamingEngine(std::function<std::string(const std::string&)> rename) : rename_(std::move(rename)) {}
  std::string_view name() const override { return "renaming"; }
  Result<std::unique_ptr<const Execution<double>>> compile(const Graph<double>& graph, const Pack<double>& inputs,
                                                           const Data<double>& data) const override {
    auto compiled = builtinEngine<double>("compiled").compile(graph, inputs, data);
    if (!compiled) return fail(rename_(compiled.error().message));
    return compiled;
  }

 private:
  std::function<std::string(const std::string&)> rename_;
};

const props::NamedProperty<double>& property(std::string_view name) {
  const auto* found = props::findProperty<double>(name);
  EXPECT_NE(found, nullptr) << name;
  return *found;
}

const nlohmann::json kLogOfNan = nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [2]}],
    "values": [["1", "nan"]], "nodes": [{"op": "neg", "args": [0]}, {"op": "log", "args": [0]}]})");
const nlohmann::json kDivByZero = nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [2]}, {"shape": [2]}],
    "values": [["1", "2"], ["3", "0"]], "nodes": [{"op": "div", "args": [0, 1]}]})");

TEST(DomainErrors, TheBuiltinEnginesRefuseWhereTheTableSaysAndNameTheNode) {
  for (std::string_view engine : kBuiltinEngineNames) {
    for (const auto& doc : {kLogOfNan, kDivByZero}) {
      props::Verdict verdict = props::checkDocument(property("domain_errors"), builtinEngine<double>(engine), doc);
      EXPECT_TRUE(verdict.holds && verdict.skipped.empty()) << engine << ": " << verdict.why << verdict.skipped;
    }
    props::Verdict rational = props::checkDocument(*props::findProperty<Rational>("domain_errors"),
                                                   builtinEngine<Rational>(engine), kDivByZero);
    EXPECT_TRUE(rational.holds && rational.skipped.empty()) << engine << ": " << rational.why;
  }
}

TEST(DomainErrors, FailsAnEngineThatLetsNanThroughLog) {
  props::Verdict verdict = props::checkDocument(property("domain_errors"), UncheckedEngine(), kLogOfNan);
  EXPECT_FALSE(verdict.holds);
  EXPECT_EQ(verdict.why, "unchecked compiles the case, but node 2 is outside its domain: log needs x > 0 (not NaN), "
                         "and element 1 of its argument at position 0 is nan");
  EXPECT_EQ(verdict.blamed, std::set<std::size_t>{2});
}

// Drawn values seldom reach a domain's boundary: each node with a domain is also probed alone at 0,
// −0, NaN, ±inf, the smallest subnormal and ±1.
TEST(DomainErrors, ProbesEachNodeWithADomainAtItsBoundaries) {
  const nlohmann::json inside = nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [2]}],
      "values": [["1", "2"]], "nodes": [{"op": "exp", "args": [0]}, {"op": "log", "args": [1]}]})");
  EXPECT_TRUE(props::checkDocument(property("domain_errors"), builtinEngine<double>("compiled"), inside).holds);
  props::Verdict verdict = props::checkDocument(property("domain_errors"), UncheckedEngine(), inside);
  EXPECT_FALSE(verdict.holds);
  EXPECT_EQ(verdict.why, "node 2 (log) alone (node 1 of its own case) with element 0 of its argument at 0: unchecked "
                         "compiles it, but log needs x > 0 (not NaN)");
  EXPECT_EQ(verdict.blamed, std::set<std::size_t>{2});
}

TEST(DomainErrors, FailsAnEngineThatRefusesInsideEveryDomain) {
  RenamingEngine refusing([](const std::string& m) { return m; });
  props::Verdict ok = props::checkDocument(property("domain_errors"), refusing, kDivByZero);
  EXPECT_TRUE(ok.holds) << "IEEE division by zero is no error";
  // An engine whose every compile fails, on a case inside every domain.
  class Failing final : public Engine<double> {
   public:
    std::string_view name() const override { return "failing"; }
    Result<std::unique_ptr<const Execution<double>>> compile(const Graph<double>&, const Pack<double>&,
                                                             const Data<double>&) const override {
      return fail("node 2 (div): divisor contains 0");
    }
  };
  props::Verdict verdict = props::checkDocument(property("domain_errors"), Failing(), kDivByZero);
  EXPECT_FALSE(verdict.holds);
  EXPECT_EQ(verdict.why, "failing refuses a case inside every op's domain (by the domain table): node 2 (div): divisor contains 0");
}

TEST(DomainErrors, FailsAMessageNamingAnotherPosition) {
  RenamingEngine withoutInputs([](const std::string& m) { return "node 1" + m.substr(6); });
  props::Verdict verdict = props::checkDocument(property("domain_errors"), withoutInputs, kLogOfNan);
  EXPECT_FALSE(verdict.holds);
  EXPECT_EQ(verdict.why, "renaming refuses the case with 'node 1 (log): input contains values <= 0 or NaN', not "
                         "'node 2 (log): input contains values <= 0 or NaN' (log needs x > 0 (not NaN), and element 1 "
                         "of its argument at position 0 is nan)");
}

// An engine in another process names the node as the specification does, or by the protocol's
// position; the process adapter puts "the engine failed: " first.
TEST(DomainErrors, AcceptsTheProtocolsPositionFromAnotherProcess) {
  auto byPosition = [](std::size_t p) {
    return [p](const std::string& m) { return "the engine failed: position " + std::to_string(p) + ": " + m.substr(m.find(": ") + 2); };
  };
  EXPECT_TRUE(props::checkDocument(property("domain_errors"), RenamingEngine(byPosition(2)), kLogOfNan).holds);
  EXPECT_FALSE(props::checkDocument(property("domain_errors"), RenamingEngine(byPosition(1)), kLogOfNan).holds);
  RenamingEngine prefixed([](const std::string& m) { return "the engine failed: " + m; });
  EXPECT_TRUE(props::checkDocument(property("domain_errors"), prefixed, kLogOfNan).holds);
  RenamingEngine elsewhere([](const std::string& m) { return "failed: " + m; });
  EXPECT_FALSE(props::checkDocument(property("domain_errors"), elsewhere, kLogOfNan).holds);
}

const char* kGather = R"({"tapecheck": 1, "inputs": [{"shape": [3, 2]}, {"shape": [2, 2]}],
    "data": {"g0": {"indices": [1, 0]}}, "values": [["1", "2", "3", "4", "5", "6"], ["1", "2", "3", "4"]],
    "nodes": [{"op": "gather0", "args": [0], "attrs": {"key": "g0"}}, {"op": "gather0", "args": [1], "attrs": {"key": "g0"}}]})";

TEST(IndexBounds, EntriesLoadUpToTheSmallestReadersRowsAndAreRefusedNamingIt) {
  const Case<double> c = parseCase<double>(kGather).value();
  EXPECT_EQ(props::indices::entryDisagreement(c.graph, props::indices::graphDocument(c), "g0", props::indices::readersOf(c.graph, "g0"), 0), "");
  EXPECT_EQ(props::indices::entryDisagreement(c.graph, props::indices::graphDocument(c), "g0", props::indices::readersOf(c.graph, "g0"), 1), "");
  EXPECT_EQ(props::indices::entryDisagreement(c.graph, props::indices::graphDocument(c), "g0", props::indices::readersOf(c.graph, "g0"), 2), "") << "out of range for node 3 (2 rows), not node 2";
  EXPECT_EQ(props::indices::entryDisagreement(c.graph, props::indices::graphDocument(c), "g0", props::indices::readersOf(c.graph, "g0"), 3), "");
  EXPECT_EQ(props::indices::firstOutOfRange(c.graph, props::indices::readersOf(c.graph, "g0"), 2), 3u);
  EXPECT_EQ(props::indices::firstOutOfRange(c.graph, props::indices::readersOf(c.graph, "g0"), 3), 2u);
  EXPECT_TRUE(props::checkDocument(property("index_bounds"), builtinEngine<double>("compiled"),
                                   nlohmann::json::parse(kGather)).holds);
}

TEST(IndexBounds, ACaseWithoutIndexListsGetsAGatherAppended) {
  const Case<double> c = parseCase<double>(kLogOfNan.dump()).value();
  auto extended = props::indices::withIndexReader(c);
  ASSERT_TRUE(extended);
  EXPECT_EQ(extended->second, "rows");
  EXPECT_EQ(extended->first.graph.positionCount(), 4u);
  EXPECT_EQ(props::indices::readersOf(extended->first.graph, "rows"), std::vector<std::size_t>{3});
  EXPECT_EQ(props::indices::listDisagreement(extended->first, "rows", props::indices::readersOf(extended->first.graph, "rows")), "");
  props::Verdict verdict = props::checkDocument(property("index_bounds"), builtinEngine<double>("compiled"), kLogOfNan);
  EXPECT_TRUE(verdict.holds && verdict.skipped.empty()) << verdict.why << verdict.skipped;
  props::Verdict scalar = props::checkDocument(property("index_bounds"), builtinEngine<double>("compiled"),
                                               nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": []}],
      "values": [["1"]], "nodes": [{"op": "neg", "args": [0]}]})"));
  EXPECT_TRUE(scalar.holds && scalar.skipped.empty()) << "position 0 reshaped to [1]: " << scalar.why << scalar.skipped;
}

TEST(PropertyChoice, PropertiesNeedingAnOpAreLeftOutWhereNoneOccurs) {
  const auto& kinks = property("kink_conventions");
  const auto& index = property("index_bounds");
  const std::vector<OpKind> arithmetic{OpKind::add, OpKind::mul};
  EXPECT_FALSE(props::appliesToOps(kinks, arithmetic));
  EXPECT_TRUE(props::appliesToOps(index, arithmetic)) << "it appends a gather0 where there is none";
  EXPECT_TRUE(props::appliesToOps(kinks, std::vector<OpKind>{OpKind::add, OpKind::clamp}));
  EXPECT_TRUE(props::appliesToOps(property("domain_errors"), arithmetic));
}

}  // namespace
}  // namespace tc
