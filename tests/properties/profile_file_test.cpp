// The profile_file oracle (properties/oracles/profile_file.h): the profiles it declares from
// generated cases reach every key and form of docs/semantics.md §3.6, are read as declared, and a
// misread field is named.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "generators/case_gen.h"
#include "properties/oracles/profile_file.h"

namespace tc {
namespace {

template <class T>
class ProfileFile : public ::testing::Test {};
using Carriers = ::testing::Types<Rational, double, float>;
TYPED_TEST_SUITE(ProfileFile, Carriers);

// Every key is written and left out somewhere, every choice taken; and every declaration reads as declared.
TYPED_TEST(ProfileFile, DeclarationsReachEveryKeyAndReadAsDeclared) {
  using T = TypeParam;
  std::set<std::string> seen;
  for (std::uint64_t seed = 0; seed < 400; ++seed) {
    auto generated = gen::generateCase<T>(seed, static_cast<int>(seed % 101));
    ASSERT_TRUE(generated.loaded);
    const Case<T>& c = *generated.loaded;
    props::Verdict verdict = props::profile_file(c);
    ASSERT_TRUE(verdict.holds) << verdict.why;
    const auto declared = props::declared_profile::declare(c);
    for (const char* key : {"\"carriers\"", "\"ops\"", "\"single_output\"", "\"zero_sign\"", "\"nan\"",
                            "\"kink_conventions_declared\"", "\"kinks\"", "\"deviations\"", "\"below\"", "\"above\"",
                            "\"gives\": \"x\"", "\"ancestors\"", "\"unspecified\"", "\"propagate\"", "false"})
      seen.insert((declared.text.find(key) == std::string::npos ? "without " : "with ") + std::string(key));
  }
  for (const char* key : {"\"carriers\"", "\"ops\"", "\"single_output\"", "\"zero_sign\"", "\"nan\"",
                          "\"kink_conventions_declared\"", "\"kinks\""}) {
    EXPECT_TRUE(seen.count("with " + std::string(key))) << key;
    EXPECT_TRUE(seen.count("without " + std::string(key))) << key;
  }
  for (const char* form : {"\"ancestors\"", "\"unspecified\"", "\"propagate\"", "false"})
    EXPECT_TRUE(seen.count("with " + std::string(form))) << form;
  if constexpr (std::is_floating_point_v<T>)
    for (const char* key : {"\"deviations\"", "\"below\"", "\"above\"", "\"gives\": \"x\""}) {
      EXPECT_TRUE(seen.count("with " + std::string(key))) << key;
      EXPECT_TRUE(seen.count("without " + std::string(key))) << key;
    }
}

// Each field read otherwise than declared is named, with both values where they print.
TEST(ProfileFileDifference, NamesEachMisreadField) {
  EngineProfile declared;
  declared.name = "p";
  declared.carriers = {"double"};
  declared.ops["double"] = {OpKind::sigmoid, OpKind::max};
  declared.conventions.kink[static_cast<std::size_t>(OpKind::max)] = 2;
  declared.deviations.push_back({"double", OpKind::sigmoid, -709.78, std::nullopt, 0, "why", false});
  EXPECT_EQ(props::declared_profile::difference(declared, declared), "");
  auto misread = [&](auto change) {
    EngineProfile read = declared;
    change(read);
    return props::declared_profile::difference(declared, read);
  };
  EXPECT_EQ(misread([](EngineProfile& p) { p.name = "q"; }), "name: declared \"p\", read \"q\"");
  EXPECT_EQ(misread([](EngineProfile& p) { p.carriers.push_back("float"); }),
            "carriers: declared [\"double\"], read [\"double\", \"float\"]");
  EXPECT_EQ(misread([](EngineProfile& p) { p.ops["double"].pop_back(); }), "ops.double: not read as declared");
  EXPECT_EQ(misread([](EngineProfile& p) { p.singleOutput = SingleOutput::ancestors; }), "single_output: not read as declared");
  EXPECT_EQ(misread([](EngineProfile& p) { p.zeroSign = ZeroSign::unspecified; }), "zero_sign: not read as declared");
  EXPECT_EQ(misread([](EngineProfile& p) { p.conventions.nanPropagates = true; }), "nan: declared spec, read propagate");
  EXPECT_EQ(misread([](EngineProfile& p) { p.conventions.kink[static_cast<std::size_t>(OpKind::max)] = 0; }),
            "kinks.max: declared both, read split");
  EXPECT_EQ(misread([](EngineProfile& p) { p.kinkConventionsDeclared = false; }),
            "kink_conventions_declared: not read as declared");
  EXPECT_EQ(misread([](EngineProfile& p) { std::swap(p.deviations[0].below, p.deviations[0].above); }),
            "deviations[0].below: declared -0x1.62e3d70a3d70ap+9, read none");
  EXPECT_EQ(misread([](EngineProfile& p) { p.deviations[0].gives = -0.0; }), "deviations[0].gives: declared 0x0p+0, read -0x0p+0");
  EXPECT_EQ(misread([](EngineProfile& p) { p.deviations[0].givesArgument = true; }), "deviations[0].gives: declared 0x0p+0, read x");
  EXPECT_EQ(misread([](EngineProfile& p) { p.deviations.clear(); }), "deviations: declared 1, read 0");
}

}  // namespace
}  // namespace tc
