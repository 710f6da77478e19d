// The case generator: nothing discarded, every op reached, and shrinks that end small.
#include <gtest/gtest.h>

#include <set>

#include "core/graph/node_program.h"
#include "core/io/case_file.h"
#include "generators/case_gen.hpp"

namespace tc {
namespace {

template <class T>
class CaseGen : public ::testing::Test {};
using Carriers = ::testing::Types<Rational, RationalNoEq, ModP, double, float>;
TYPED_TEST_SUITE(CaseGen, Carriers);

TYPED_TEST(CaseGen, EveryGeneratedCaseLoadsAndEveryAllowedOpAppears) {
  using T = TypeParam;
  std::set<std::string> seen;
  for (std::uint64_t seed = 0; seed < 2000; ++seed) {
    nlohmann::json doc = gen::randomCase<T>(seed, static_cast<int>(seed % 101));
    auto loaded = parseCase<T>(doc.dump());
    ASSERT_TRUE(loaded) << loaded.error().message << "\n" << doc.dump();
    for (const auto& node : doc["nodes"]) seen.insert(node["op"].template get<std::string>());
  }
  for (std::size_t i = 0; i < kOpCount; ++i) {
    auto kind = static_cast<OpKind>(i);
    bool allowed = kind == OpKind::opaque || satisfies(Carrier<T>::caps, requirementOf<T>(kind, Attrs<T>{}));
    EXPECT_EQ(seen.contains(std::string(opName(kind))), allowed) << opName(kind);
  }
}

TYPED_TEST(CaseGen, GenerationIsDeterministicInTheSeed) {
  using T = TypeParam;
  EXPECT_EQ(gen::randomCase<T>(42, 80), gen::randomCase<T>(42, 80));
  EXPECT_NE(gen::randomCase<T>(42, 80), gen::randomCase<T>(43, 80));
}

// A stand-in fault: "the case has a mul node whose output reaches the output". A large case
// must shrink to at most three nodes with dimensions at most three, every step loading.
TYPED_TEST(CaseGen, ShrinkingEndsAtASmallCase) {
  using T = TypeParam;
  auto hasMul = [](const nlohmann::json& doc) {
    for (const auto& node : doc["nodes"])
      if (node["op"] == "mul") return true;
    return false;
  };
  std::size_t shrunk = 0;
  for (std::uint64_t seed = 0; seed < 400 && shrunk < 5; ++seed) {
    nlohmann::json doc = gen::randomCase<T>(seed, 100);
    if (!hasMul(doc) || doc["nodes"].size() < 5) continue;
    auto [small, steps] = gen::shrinkWhile<T>(doc, hasMul);
    ASSERT_TRUE(parseCase<T>(small.dump())) << small.dump();
    EXPECT_LE(small["nodes"].size(), 3u) << small.dump();
    EXPECT_GT(steps, 0u);
    for (const auto& input : small["inputs"])
      for (const auto& dim : input["shape"]) EXPECT_LE(dim.template get<std::size_t>(), 3u) << small.dump();
    for (const auto& tensor : small["values"])
      for (const auto& v : tensor) EXPECT_TRUE(v == "0" || v == "1" || v == "-1") << small.dump();
    ++shrunk;
  }
  EXPECT_EQ(shrunk, 5u);
}

TYPED_TEST(CaseGen, EveryShrinkLoadsAndIsStrictlySmaller) {
  using T = TypeParam;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    nlohmann::json doc = gen::randomCase<T>(seed, 60);
    for (const auto& candidate : gen::shrinksOf<T>(doc)) {
      ASSERT_TRUE(parseCase<T>(candidate.dump())) << candidate.dump();
      EXPECT_NE(candidate, doc);
    }
  }
}

}  // namespace
}  // namespace tc
