// Engine profiles (docs/semantics.md §2.5, §3.6): for every convention an engine may declare, its
// witness case — the smallest case that tells the choices apart — fails an engine that follows it
// under the specification's profile and passes under the profile that declares it; tapecheck's
// own engine flips the other way.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/graph/node_program.h"
#include "core/spec/reference.h"
#include "core/graph/seed_pack.h"
#include "core/ops/library.hpp"
#include "properties/theorems/backwardDenseAllFrom_eq_dense.h"
#include "properties/runner/runner.h"
#include "tests/properties/rewritten_context_engine.h"

namespace tc {
namespace {

// The built-in compiled engine run on a copy of the graph with conventions of its own; its
// single-output pass either is the compiled one or sweeps only the output's ancestors.
class ConventionExecution final : public Execution<double> {
 public:
  ConventionExecution(std::unique_ptr<const Graph<double>> graph, const Data<double>& data,
                      std::unique_ptr<const Execution<double>> inner, SingleOutput singleOutput)
      : graph_(std::move(graph)), data_(data), inner_(std::move(inner)), singleOutput_(singleOutput) {}
  const Context<double>& context() const override { return inner_->context(); }
  Result<Pack<double>> backwardDense(const Pack<double>& seeds) const override { return inner_->backwardDense(seeds); }
  Result<SingleOutputResult<double>> backwardSingle(std::size_t output, const Tensor<double>& seed) const override {
    if (singleOutput_ == SingleOutput::support) return inner_->backwardSingle(output, seed);
    Pack<double> gradients = singleSeedPack(*graph_, output, seed);
    std::vector<bool> ancestor(graph_->positionCount(), false);
    ancestor[output] = true;
    for (std::size_t p = graph_->positionCount(); p-- > graph_->inputs.size();) {
      if (!ancestor[p]) continue;
      const Node<double>& node = graph_->nodeAt(p);
      if (ops::hasTerms(node.op))
        for (std::size_t a : node.args) ancestor[a] = true;
      auto local = localContribution<double>(*graph_, context(), data_, p, gradients[p]);
      auto add = [&](std::size_t target, const Tensor<double>& contribution) {
        for (std::size_t i = 0; i < contribution.size(); ++i) gradients[target][i] += contribution[i];
      };
      if (local.isDense)  // an opaque program writes below itself
        for (std::size_t target = 0; target < p; ++target) add(target, local.dense[target]);
      else
        for (const auto& [target, contribution] : local.support) add(target, contribution);
    }
    return SingleOutputResult<double>{std::move(gradients), std::nullopt};
  }

 private:
  std::unique_ptr<const Graph<double>> graph_;
  const Data<double>& data_;
  std::unique_ptr<const Execution<double>> inner_;
  SingleOutput singleOutput_;
};

class ConventionEngine final : public Engine<double> {
 public:
  ConventionEngine(Conventions conventions, SingleOutput singleOutput = SingleOutput::support)
      : conventions_(conventions), singleOutput_(singleOutput) {}
  std::string_view name() const override { return "conventions"; }
  Result<std::unique_ptr<const Execution<double>>> compile(const Graph<double>& graph, const Pack<double>& inputs,
                                                           const Data<double>& data) const override {
    auto own = std::make_unique<Graph<double>>(graph);
    own->conventions = conventions_;
    auto inner = builtinEngine<double>("compiled").compile(*own, inputs, data);
    if (!inner) return std::unexpected(inner.error());
    return std::make_unique<const ConventionExecution>(std::move(own), data, std::move(*inner), singleOutput_);
  }

 private:
  Conventions conventions_;
  SingleOutput singleOutput_;
};

Conventions choosing(OpKind op, std::string_view choice) {
  Conventions conventions;
  auto index = ops::kinkChoiceIndex(op, choice);
  EXPECT_TRUE(index) << choice;
  conventions.kink[static_cast<std::size_t>(op)] = index.value_or(0);
  return conventions;
}

Conventions propagatingNan() {
  Conventions conventions;
  conventions.nanPropagates = true;
  return conventions;
}

struct Witness {
  std::string name, property, doc;
  EngineProfile declared;
};

EngineProfile declaring(Conventions conventions, SingleOutput singleOutput = SingleOutput::support) {
  EngineProfile profile;
  profile.name = "declared";
  profile.conventions = conventions;
  profile.singleOutput = singleOutput;
  return profile;
}

std::vector<Witness> witnesses() {
  const std::string x0 = R"("tapecheck": 1, "inputs": [{"shape": [1]}], "values": [["0"]])";
  const std::string tie = R"("tapecheck": 1, "inputs": [{"shape": [1]}, {"shape": [1]}], "values": [["2"], ["2"]])";
  return {
      {"relu'(0) = 1", "compileChecked_backwardDenseFrom",
       "{" + x0 + R"(, "nodes": [{"op": "relu", "args": [0]}], "seed": ["3"]})", declaring(choosing(OpKind::relu, "one"))},
      {"abs'(0) as ct·0", "compileChecked_backwardDenseFrom",
       "{" + x0 + R"(, "nodes": [{"op": "abs", "args": [0]}], "seed": ["nan"]})",
       declaring(choosing(OpKind::abs, "product"))},
      // sgn(0) = sgn(NaN) = 0: NaN·0 at the zero, 3·0 = 0 at the NaN (product with NaN
      // propagating would give 3·NaN there).
      {"abs' as ct·sgn(x)", "compileChecked_backwardDenseFrom",
       R"({"tapecheck": 1, "inputs": [{"shape": [2]}], "values": [["0", "nan"]], "nodes": [{"op": "abs", "args": [0]}],
           "seed": ["nan", "3"]})",
       declaring([] {
         Conventions c = choosing(OpKind::abs, "sign");
         c.nanPropagates = true;
         return c;
       }())},
      {"clamp blocks at its bounds", "compileChecked_backwardDenseFrom",
       "{" + x0 + R"(, "nodes": [{"op": "clamp", "args": [0], "attrs": {"lo": "0", "hi": "1"}}], "seed": ["3"]})",
       declaring(choosing(OpKind::clamp, "block"))},
      {"max tie to the first", "compileChecked_backwardDenseFrom",
       "{" + tie + R"(, "nodes": [{"op": "max", "args": [0, 1]}], "seed": ["3"]})", declaring(choosing(OpKind::max, "first"))},
      {"max tie to both", "compileChecked_backwardDenseFrom",
       "{" + tie + R"(, "nodes": [{"op": "max", "args": [0, 1]}], "seed": ["3"]})", declaring(choosing(OpKind::max, "both"))},
      {"min tie to the first", "compileChecked_backwardDenseFrom",
       "{" + tie + R"(, "nodes": [{"op": "min", "args": [0, 1]}], "seed": ["3"]})", declaring(choosing(OpKind::min, "first"))},
      {"min tie to both", "compileChecked_backwardDenseFrom",
       "{" + tie + R"(, "nodes": [{"op": "min", "args": [0, 1]}], "seed": ["3"]})", declaring(choosing(OpKind::min, "both"))},
      {"relu(NaN) = NaN", "compileChecked_context",
       R"({"tapecheck": 1, "inputs": [{"shape": [1]}], "values": [["nan"]], "nodes": [{"op": "relu", "args": [0]}]})",
       declaring(propagatingNan())},
      {"relu'(NaN) passes ct", "compileChecked_backwardDenseFrom",
       R"({"tapecheck": 1, "inputs": [{"shape": [1]}], "values": [["nan"]], "nodes": [{"op": "relu", "args": [0]}],
           "seed": ["3"]})",
       declaring(propagatingNan())},
      {"NaN max gives ct to both", "compileChecked_backwardDenseFrom",
       R"({"tapecheck": 1, "inputs": [{"shape": [1]}, {"shape": [1]}], "values": [["nan"], ["1"]],
           "nodes": [{"op": "max", "args": [0, 1]}], "seed": ["3"]})",
       declaring(propagatingNan())},
      // Off the output's path, mul(x, x) at x = inf turns a zero cotangent into NaN for a pass
      // that runs it; a pass over the ancestors never does.
      {"single output over ancestors", "backwardDenseAllFrom_eq_dense",
       R"({"tapecheck": 1, "inputs": [{"shape": [1]}], "values": [["inf"]],
           "nodes": [{"op": "mul", "args": [0, 0]}, {"op": "neg", "args": [0]}], "output": 2, "seed": ["1"]})",
       declaring({}, SingleOutput::ancestors)},
  };
}

// The engine that follows a witness's convention.
ConventionEngine follower(const Witness& w) { return ConventionEngine(w.declared.conventions, w.declared.singleOutput); }

TEST(Conventions, EachWitnessFailsItsFollowerUnderTheSpecificationsProfile) {
  for (const Witness& w : witnesses()) {
    const auto* property = props::findProperty<double>(w.property);
    ASSERT_NE(property, nullptr) << w.property;
    props::Verdict verdict = props::checkDocument(*property, follower(w), nlohmann::json::parse(w.doc));
    EXPECT_FALSE(verdict.holds) << w.name;
    EXPECT_TRUE(verdict.skipped.empty()) << w.name << ": " << verdict.skipped;
  }
}

TEST(Conventions, EachWitnessPassesItsFollowerUnderTheProfileThatDeclaresIt) {
  for (const Witness& w : witnesses()) {
    const auto* property = props::findProperty<double>(w.property);
    ConventionEngine engine = follower(w);
    props::Verdict verdict =
        props::checkDocument(*property, props::EngineUnderTest<double>{engine, props::Policy::bits, w.declared},
                             nlohmann::json::parse(w.doc));
    EXPECT_TRUE(verdict.holds) << w.name << ": " << verdict.why;
    EXPECT_TRUE(verdict.skipped.empty()) << w.name << ": " << verdict.skipped;
  }
}

// The other direction: an engine that keeps the specification's conventions passes each witness
// under the specification's profile and fails it once a profile declares another convention.
// (tapecheck's own engines run whatever conventions the graph carries, so they pass both.)
TEST(Conventions, AnEngineKeepingTheSpecificationsConventionsFailsADeclaredOne) {
  for (const Witness& w : witnesses()) {
    const auto* property = props::findProperty<double>(w.property);
    nlohmann::json doc = nlohmann::json::parse(w.doc);
    ConventionEngine spec({});
    EXPECT_TRUE(props::checkDocument(*property, spec, doc).holds) << w.name;
    EXPECT_FALSE(
        props::checkDocument(*property, props::EngineUnderTest<double>{spec, props::Policy::bits, w.declared}, doc).holds)
        << w.name;
    for (std::string_view name : kBuiltinEngineNames) {
      const Engine<double>& builtin = builtinEngine<double>(name);
      EXPECT_TRUE(props::checkDocument(*property, builtin, doc).holds) << w.name << " " << name;
      EXPECT_TRUE(props::checkDocument(*property, props::EngineUnderTest<double>{builtin, props::Policy::bits, w.declared},
                                       doc).holds || w.declared.singleOutput == SingleOutput::ancestors)
          << w.name << " " << name;
    }
  }
}

// kink_conventions sees every kink and NaN convention on its own (the table, not the theorem
// properties): each witness fails its follower under the specification's profile, with a message
// naming the node, the element and the choice, and passes it under the profile that declares it.
TEST(KinkConventions, SeesEveryWitnessOfAKinkOrNanConvention) {
  const auto* property = props::findProperty<double>("kink_conventions");
  ASSERT_NE(property, nullptr);
  for (const Witness& w : witnesses()) {
    if (w.property == "backwardDenseAllFrom_eq_dense") continue;  // not a convention of a term
    nlohmann::json doc = nlohmann::json::parse(w.doc);
    ConventionEngine engine = follower(w);
    props::Verdict spec = props::checkDocument(*property, engine, doc);
    EXPECT_FALSE(spec.holds) << w.name;
    EXPECT_TRUE(spec.why.find("but the kink table gives") != std::string::npos) << w.name << ": " << spec.why;
    EXPECT_TRUE(spec.blamed.contains(w.doc.find("[0, 1]") != std::string::npos ? 2 : 1)) << w.name;
    props::Verdict declared = props::checkDocument(
        *property, props::EngineUnderTest<double>{engine, props::Policy::bits, w.declared}, doc);
    EXPECT_TRUE(declared.holds) << w.name << ": " << declared.why;
  }
}

TEST(KinkConventions, NamesTheElementAndTheChoice) {
  const auto* property = props::findProperty<double>("kink_conventions");
  ConventionEngine engine(choosing(OpKind::relu, "one"));
  props::Verdict verdict = props::checkDocument(*property, engine, nlohmann::json::parse(R"({"tapecheck": 1,
      "inputs": [{"shape": [2]}], "values": [["1", "0"]], "nodes": [{"op": "relu", "args": [0]}]})"));
  EXPECT_EQ(verdict.why, "node 1 (relu) element 1 (x = 0, ct = 0.5), at its kink, choice 'zero': conventions gives "
                         "the gradient 0.5 at position 0 but the kink table gives 0");
}

// An engine whose profile does not declare its kink conventions is held to the table away from
// the kinks only; a wrong term there still fails.
TEST(KinkConventions, UndeclaredConventionsAreJudgedAwayFromTheKinksOnly) {
  const auto* property = props::findProperty<double>("kink_conventions");
  EngineProfile undeclared;
  undeclared.kinkConventionsDeclared = false;
  ConventionEngine engine(choosing(OpKind::relu, "one"));
  nlohmann::json doc = nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [3]}],
      "values": [["1", "0", "-1"]], "nodes": [{"op": "relu", "args": [0]}]})");
  EXPECT_TRUE(props::checkDocument(*property, props::EngineUnderTest<double>{engine, props::Policy::bits, undeclared}, doc).holds);
  EXPECT_FALSE(props::checkDocument(*property, engine, doc).holds) << "declared by the specification's profile";
  // NaN is no kink: an undeclared NaN convention still fails.
  ConventionEngine propagating(propagatingNan());
  nlohmann::json nan = nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [1]}], "values": [["nan"]],
      "nodes": [{"op": "relu", "args": [0]}]})");
  EXPECT_FALSE(
      props::checkDocument(*property, props::EngineUnderTest<double>{propagating, props::Policy::bits, undeclared}, nan).holds);
}

TEST(Conventions, AnUnspecifiedSignOfZeroLetsBothZerosPassAndNothingElse) {
  const auto* property = props::findProperty<double>("compileChecked_context");
  nlohmann::json witness = nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [2]}],
      "values": [["-1", "2"]], "nodes": [{"op": "relu", "args": [0]}]})");
  EngineProfile unspecified;
  unspecified.zeroSign = ZeroSign::unspecified;
  // Negates every zero of the reference context: a sign of zero the specification does not choose.
  testing::RewrittenContextEngine engine("zero-sign", [](const Graph<double>&, Context<double>& context) {
    for (auto& tensor : context)
      for (double& v : tensor.values)
        if (v == 0) v = -v;
  });
  props::Verdict spec = props::checkDocument(*property, engine, witness);
  EXPECT_FALSE(spec.holds);
  EXPECT_EQ(props::kDifferenceClasses[*spec.differenceClass], "signed zero");
  props::EngineUnderTest<double> subject{engine, props::Policy::bits, unspecified};
  EXPECT_EQ(subject.policy, props::Policy::bitsAnyZeroSign);
  EXPECT_TRUE(props::checkDocument(*property, subject, witness).holds);
  // Every other value is still compared bit for bit.
  EXPECT_TRUE(props::sameUnder(props::Policy::bitsAnyZeroSign, -0.0, 0.0));
  EXPECT_FALSE(props::sameUnder(props::Policy::bitsAnyZeroSign, 1.0, std::nextafter(1.0, 2.0)));
  EXPECT_FALSE(props::sameUnder(props::Policy::bitsAnyZeroSign, 0.0, std::numeric_limits<double>::denorm_min()));
  EXPECT_FALSE(props::sameUnder(props::Policy::bitsAnyZeroSign, 0.0, std::numeric_limits<double>::quiet_NaN()));
}

// A declared profile is still checked everywhere else: generated cases agree exactly.
TEST(Conventions, AnEngineFollowingADeclaredProfilePassesGeneratedCases) {
  Conventions torchLike = choosing(OpKind::max, "split");
  torchLike.nanPropagates = true;
  EngineProfile profile = declaring(torchLike, SingleOutput::ancestors);
  // A sweep that never visits a position leaves a −0 seed there; the dense order adds +0 to it.
  profile.zeroSign = ZeroSign::unspecified;
  ConventionEngine engine(torchLike, SingleOutput::ancestors);
  props::EngineUnderTest<double> subject{engine, props::Policy::bits, profile};
  for (const auto& property : props::propertiesFor<double>()) {
    if (property.scope != props::Scope::engine) continue;
    props::PropertyRun run = props::runProperty(property, subject, {200, 3});
    EXPECT_TRUE(run.passed()) << property.name << ": "
                              << run.whyNotPassed();
  }
}

}  // namespace
}  // namespace tc
