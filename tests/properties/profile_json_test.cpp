// Engine profiles as JSON: every key read, written back to an equal profile, and every mistake an
// error naming the key.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "properties/engines/profile_json.h"

namespace tc {
namespace {

using nlohmann::json;

TEST(ProfileJson, ReadsEveryKey) {
  auto profile = profileFromJson(json::parse(R"({"name": "torch", "carriers": ["double", "float"],
      "ops": ["add", "relu"], "single_output": "ancestors", "zero_sign": "unspecified",
      "kinks": {"max": "both", "clamp": "block"}, "nan": "propagate", "kink_conventions_declared": false})"));
  ASSERT_TRUE(profile) << profile.error().message;
  EXPECT_EQ(profile->name, "torch");
  EXPECT_EQ(profile->carriers, (std::vector<std::string>{"double", "float"}));
  EXPECT_EQ(profile->ops.size(), 2u) << "a list of ops applies to each carrier the profile names";
  EXPECT_EQ(profile->ops.at("float"), (std::vector<OpKind>{OpKind::add, OpKind::relu}));
  EXPECT_EQ(profile->singleOutput, SingleOutput::ancestors);
  EXPECT_EQ(profile->zeroSign, ZeroSign::unspecified);
  EXPECT_EQ(profile->conventions.kinkOf(OpKind::max), 2);
  EXPECT_EQ(profile->conventions.kinkOf(OpKind::clamp), 1);
  EXPECT_EQ(profile->conventions.kinkOf(OpKind::relu), 0);
  EXPECT_TRUE(profile->conventions.nanPropagates);
  EXPECT_FALSE(profile->kinkConventionsDeclared);
}

TEST(ProfileJson, ABuiltInProfileReadsOnceOrIsTheAdaptersBugNamingIt) {
  const EngineProfile read = builtInProfile("ADOL-C", R"({"name": "adolc", "carriers": ["double"], "zero_sign": "unspecified"})");
  EXPECT_EQ(read.name, "adolc");
  EXPECT_EQ(read.carriers, (std::vector<std::string>{"double"}));
  EXPECT_EQ(read.zeroSign, ZeroSign::unspecified);
  try {
    builtInProfile("ADOL-C", R"({"name": "adolc", "carriers": ["quad"]})");
    ADD_FAILURE() << "a profile naming no known carrier was read";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("the ADOL-C profile does not read: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("quad"), std::string::npos) << e.what();
  }
}

TEST(ProfileJson, AnEmptyObjectIsTheSpecificationsProfileWithoutTheIntervalCarrier) {
  auto profile = profileFromJson(json::object());
  ASSERT_TRUE(profile);
  EXPECT_EQ(profile->name, "spec");
  // Every carrier but interval, which an engine runs only by naming it.
  EXPECT_EQ(profile->carriers, (std::vector<std::string>{"rational", "modp", "double", "float", "rational-noeq"}));
  EXPECT_FALSE(profile->supportsCarrier("interval"));
  EXPECT_TRUE(profile->ops.empty());
  EXPECT_TRUE(profileFromJson(json{{"carriers", {"interval"}}})->supportsCarrier("interval"));
  EXPECT_EQ(profile->conventions, Conventions{});
  EXPECT_EQ(profile->singleOutput, SingleOutput::support);
  EXPECT_TRUE(profile->kinkConventionsDeclared);
}

TEST(ProfileJson, WritesWhatItReadsBack) {
  auto profile = profileFromJson(json::parse(R"({"name": "p", "ops": {"rational": ["mul", "sum"], "double": ["neg"]},
      "kinks": {"relu": "one", "abs": "product", "min": "first"}, "zero_sign": "unspecified"})"));
  ASSERT_TRUE(profile);
  json written = profileToJson(*profile);
  EXPECT_EQ(written["kinks"]["max"], "split") << "the specification's choices are written too";
  auto again = profileFromJson(written);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(profileToJson(*again), written);
  EXPECT_EQ(again->conventions, profile->conventions);
  EXPECT_EQ(again->ops, profile->ops);
}

// A deviation (docs/semantics.md §3.6): one per carrier named, its region's bounds and value read
// exactly from numbers or literals, and written back.
TEST(ProfileJson, ReadsAndWritesDeclaredDeviations) {
  auto profile = profileFromJson(json::parse(R"({"deviations": [
      {"op": "sigmoid", "carriers": ["double", "float"], "below": "-709.7827111495575", "gives": "0", "why": "overflow"},
      {"op": "exp", "carriers": ["float"], "above": 88.5, "gives": "inf"}]})"));
  ASSERT_TRUE(profile) << profile.error().message;
  ASSERT_EQ(profile->deviations.size(), 3u);
  const Deviation& sigmoid = profile->deviations[0];
  EXPECT_EQ(sigmoid.carrier, "double");
  EXPECT_EQ(profile->deviations[1].carrier, "float");
  EXPECT_EQ(sigmoid.op, OpKind::sigmoid);
  EXPECT_EQ(*sigmoid.below, -709.7827111495575);
  EXPECT_FALSE(sigmoid.above);
  EXPECT_EQ(sigmoid.why, "overflow");
  EXPECT_TRUE(std::isinf(profile->deviations[2].gives));
  EXPECT_EQ(profile->deviationAt("double", OpKind::sigmoid, -720), &sigmoid);
  EXPECT_EQ(profile->deviationAt("double", OpKind::sigmoid, -709.7827111495575), nullptr) << "below is strict";
  EXPECT_EQ(profile->deviationAt("double", OpKind::exp, 100), nullptr) << "exp's is declared on float only";
  EXPECT_NE(profile->deviationAt("float", OpKind::exp, 100), nullptr);
  auto again = profileFromJson(profileToJson(*profile));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(profileToJson(*again), profileToJson(*profile));
  EXPECT_EQ(again->deviations.size(), 3u);
  // "gives": "x", the argument itself (a threshold past which the op returns x).
  auto threshold = profileFromJson(json::parse(R"({"deviations": [
      {"op": "softplus", "carriers": ["double"], "above": "20", "gives": "x"}]})"));
  ASSERT_TRUE(threshold) << threshold.error().message;
  EXPECT_TRUE(threshold->deviations[0].givesArgument);
  EXPECT_EQ(threshold->deviations[0].valueAt(22.5), 22.5);
  EXPECT_EQ(threshold->deviations[0].slope(), 1);
  EXPECT_EQ(profileToJson(*threshold)["deviations"][0]["gives"], "x");
  auto wrong = profileFromJson(json::parse(R"({"deviations": [
      {"op": "softplus", "carriers": ["double"], "above": "20", "gives": "y"}]})"));
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message.find("(or \"x\", the argument itself)"), std::string::npos) << wrong.error().message;
}

TEST(ProfileJson, EveryMistakeNamesTheKey) {
  const std::vector<std::pair<const char*, const char*>> cases{
      {"[]", "a profile must be a JSON object, got []"},
      {R"({"nme": "x"})", "no profile key 'nme'; the keys are: name, carriers, ops, single_output, zero_sign, kinks, "
                          "nan, kink_conventions_declared, deviations"},
      {R"({"deviations": {}})", "deviations: must be a list of objects, got {}"},
      {R"({"deviations": [{"op": "sigmoid", "carriers": ["double"], "below": 1}]})", "deviations[0]: needs \"gives\""},
      {R"({"deviations": [{"op": "sigmoid", "carriers": ["double"], "gives": 0}]})",
       "deviations[0]: needs \"below\" or \"above\", the region of argument values"},
      {R"({"deviations": [{"op": "add", "carriers": ["double"], "below": 1, "gives": 0}]})",
       "deviations[0].op: add is not a pointwise op of one argument"},
      {R"({"deviations": [{"op": "exp", "carriers": ["rational"], "below": 1, "gives": 0}]})",
       "deviations[0].carriers: a deviation is from an accuracy budget, so on double or float; got \"rational\""},
      {R"({"deviations": [{"op": "exp", "carriers": ["float"], "below": "one", "gives": 0}]})",
       "deviations[0].below: "},
      {R"({"deviations": [{"op": "exp", "carriers": ["float"], "above": 1, "gives": 0, "when": 1}]})",
       "deviations[0]: no key 'when'; the keys are: op, carriers, below, above, gives, why"},
      {R"({"name": 3})", "name: must be a string, got 3"},
      {R"({"carriers": ["double", "complex"]})",
       "carriers: no carrier named 'complex'; the carriers are: rational, modp, double, float, rational-noeq, interval"},
      {R"({"ops": ["add", "conv"]})", "ops: no op named 'conv'"},
      {R"({"ops": {"double": "add"}})", "ops.double: must be a list of op names, got \"add\""},
      {R"({"single_output": "pruned"})", "single_output: must be one of support, ancestors, got \"pruned\""},
      {R"({"kinks": {"add": "zero"}})", "kinks.add: the op has no kinks"},
      {R"({"kinks": {"max": "half"}})", "kinks.max: must be one of split, first, both, got \"half\""},
      {R"({"nan": true})", "nan: must be one of spec, propagate, got true"},
      {R"({"kink_conventions_declared": "yes"})", "kink_conventions_declared: must be true or false, got \"yes\""},
  };
  for (const auto& [text, message] : cases) {
    auto profile = profileFromJson(json::parse(text));
    ASSERT_FALSE(profile) << text;
    if (std::string(message).ends_with(": "))  // the literal reader's own words follow
      EXPECT_EQ(profile.error().message.substr(0, std::string(message).size()), message) << text;
    else
      EXPECT_EQ(profile.error().message, message) << text;
  }
}

}  // namespace
}  // namespace tc
