// The shrinker's oracle (properties/oracles/shrinking.h, docs/semantics.md §3.7): it holds on
// generated cases, and each of its checks sees a candidate or a counterexample that breaks the
// shrinker's rules.
#include <gtest/gtest.h>

#include "core/carriers/rational.h"
#include "generators/generate.hpp"
#include "properties/oracles/shrinking.h"

namespace tc {
namespace {

using nlohmann::json;

Case<Rational> load(const json& doc) {
  auto loaded = caseFromJson<Rational>(doc);
  EXPECT_TRUE(loaded) << loaded.error().message;
  return *loaded;
}

// Two inputs, the first read by no node; a constant; a scale; a sum.
json parent() {
  return json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [2]}, {"shape": [2]}, {"shape": [2]}],
    "nodes": [{"op": "neg", "args": [1]}, {"op": "const", "attrs": {"shape": [2], "values": ["3", "4"]}},
              {"op": "add", "args": [3, 4]}, {"op": "scale", "args": [5], "attrs": {"c": "2"}},
              {"op": "add", "args": [6, 2]}],
    "values": [["5", "6"], ["7", "8"], ["1", "-1"]], "output": 7, "seeds": {"7": ["2", "3"]}})");
}

// Why `cand`, offered for parent(), breaks the shrinker's rules ("" when it follows one).
std::string judged(const json& cand) {
  const Case<Rational> c = load(parent());
  const json doc = caseToJson(c);
  const props::shrinking::Parent<Rational> parent(doc, c);
  props::shrinking::Offered seen{std::vector<bool>(3), std::vector<bool>(5), std::vector<bool>(parent.simple.size()), {}, {}};
  const Case<Rational> loaded = load(cand);
  return props::shrinking::candidateProblem(parent, cand, loaded, seen);
}

json canonical() { return caseToJson(load(parent())); }

TEST(ShrinkerOracle, HoldsOnGeneratedCases) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed)
    for (int size : {0, 20, 60}) {
      auto generated = gen::generateCase<Rational>(seed, size, gen::CaseOptions{});
      ASSERT_TRUE(generated.loaded) << generated.loaded.error().message;
      props::Verdict verdict = props::shrinker(*generated.loaded);
      EXPECT_TRUE(verdict.holds) << "seed " << seed << " size " << size << ": " << verdict.why;
    }
  props::Verdict onParent = props::shrinker(load(parent()));
  EXPECT_TRUE(onParent.holds) << onParent.why;
}

TEST(ShrinkerOracle, EveryCandidateTheShrinkerOffersFollowsARule) {
  const Case<Rational> c = load(parent());
  auto shrinks = gen::shrinksOf<Rational>(canonical());
  ASSERT_GT(shrinks.size(), 10u);
  for (const auto& s : shrinks) EXPECT_EQ(judged(s.doc), "") << s.doc.dump();
  EXPECT_EQ(props::shrinking::candidatesProblem(canonical(), c), "");
}

TEST(ShrinkerOracle, SeesAnInputDroppedWithoutRenumbering) {
  json cand = canonical();
  cand["inputs"].erase(0), cand["values"].erase(0);  // input 0, read by no node, dropped
  for (json& node : cand["nodes"])
    if (node.contains("args"))
      for (json& a : node["args"]) a = a.get<std::size_t>() - 1;  // renumbered ...
  cand["output"] = 6, cand["seeds"] = json{{"6", {"2", "3"}}};
  cand["nodes"][3]["args"] = json{3};  // ... but for the scale's argument, left at the constant (it loads)
  EXPECT_NE(judged(cand).find("dropping input 0"), std::string::npos) << judged(cand);
}

TEST(ShrinkerOracle, SeesAnInputDroppedThatANodeReads) {
  json cand = canonical();
  cand["inputs"].erase(1), cand["values"].erase(1);  // input 1 is read by node 0
  for (json& node : cand["nodes"])
    if (node.contains("args"))
      for (json& a : node["args"]) a = a.get<std::size_t>() > 1 ? a.get<std::size_t>() - 1 : a.get<std::size_t>();
  cand["output"] = 6, cand["seeds"] = json{{"6", {"2", "3"}}};
  EXPECT_NE(judged(cand), "");
}

TEST(ShrinkerOracle, SeesANodeDeletedWithItsUsersNotRenumbered) {
  json cand = canonical();
  cand["nodes"].erase(4);                        // the top add deleted ...
  cand["output"] = 6, cand["seeds"] = json::object();
  cand["nodes"][3]["attrs"]["c"] = "3";          // ... and the scale's attribute changed
  EXPECT_NE(judged(cand), "");
}

TEST(ShrinkerOracle, SeesAConstantTurnedIntoAnInputWithOtherValues) {
  json cand = canonical();
  cand["nodes"].erase(1);
  cand["inputs"].push_back(json{{"shape", {2}}});
  cand["values"].push_back(json{"3", "5"});  // the constant held 3, 4
  for (json& node : cand["nodes"])
    if (node.contains("args"))
      for (json& a : node["args"]) {
        std::size_t p = a;
        a = p < 3 ? p : p < 4 ? p + 1 : p == 4 ? 3 : p;
      }
  EXPECT_NE(judged(cand).find("constant"), std::string::npos) << judged(cand);
}

TEST(ShrinkerOracle, SeesAValueMadeMoreComplexOrNoneSimpler) {
  json cand = canonical();
  cand["values"][2][0] = "0", cand["values"][2][1] = "5";  // 1 made simpler, -1 more complex
  EXPECT_NE(judged(cand).find("more complex"), std::string::npos) << judged(cand);
  json same = canonical();
  same["values"][0][0] = "9";  // as complex as before
  EXPECT_NE(judged(same), "");
}

TEST(ShrinkerOracle, SeesADimensionMadeLargerOrACountOrAnOpChanged) {
  json larger = canonical();
  for (std::size_t i = 0; i < 3; ++i) larger["inputs"][i]["shape"] = json{3}, larger["values"][i].push_back("0");
  larger["nodes"][1]["attrs"] = json{{"shape", {3}}, {"values", {"3", "4", "0"}}};
  larger["seeds"] = json::object();
  for (json& node : larger["nodes"]) node.erase("shape");
  EXPECT_NE(judged(larger).find("larger"), std::string::npos) << judged(larger);
  json op = canonical();
  op["nodes"][0]["op"] = "square";
  EXPECT_NE(judged(op), "");
}

TEST(ShrinkerOracle, SeesASeedChangedOtherwiseThanRemovedOrSimpler) {
  json cand = canonical();
  cand["seeds"] = json{{"6", {"2", "3"}}};  // moved to another position
  EXPECT_NE(judged(cand), "");
}

}  // namespace
}  // namespace tc
