// Kernel-sized cases: a share of the generated cases has dimensions that run the dense kernels'
// blocked and tiled paths, and the coverage categories name each path (docs/semantics.md §3).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "core/io/case_file.h"
#include "core/ops/kernel_geometry.h"
#include "core/ops/kernels.h"
#include "core/spec/exactness.h"
#include "generators/case_gen.h"
#include "generators/case_writer.hpp"
#include "generators/coverage.h"

namespace tc {
namespace {

using Dims = std::vector<std::size_t>;

std::vector<Dims> inputShapes(const nlohmann::json& doc) {
  std::vector<Dims> shapes;
  for (const auto& input : doc["inputs"]) shapes.push_back(input["shape"].get<Dims>());
  return shapes;
}

// A kernel-sized case: inputs A [m, k], B [k, n], x [k], b [m] and no other (the other cases'
// dimensions are at most 3, and they never draw exactly these four shapes with k > 3).
bool isKernelSized(const nlohmann::json& doc) {
  const auto shapes = inputShapes(doc);
  if (shapes.size() != 4 || shapes[0].size() != 2 || shapes[1].size() != 2) return false;
  return shapes[0][1] > 3 && shapes[1][0] == shapes[0][1] && shapes[2] == Dims{shapes[0][1]} &&
         shapes[3] == Dims{shapes[0][0]};
}

template <class T>
class KernelSizes : public ::testing::Test {};
using Carriers = ::testing::Types<Rational, ModP, Interval, double, float>;
TYPED_TEST_SUITE(KernelSizes, Carriers);

// About 4% of the cases from size 50 on (2% on intervals), none below; each loads, and its nodes are matmul(A, B)
// and linear(A, x, b).
TYPED_TEST(KernelSizes, AShareOfTheLargerCasesIsKernelSizedAndLoads) {
  using T = TypeParam;
  std::size_t large = 0, small = 0;
  for (std::uint64_t seed = 0; seed < 1000; ++seed) {
    const nlohmann::json below = gen::randomCase<T>(seed, 49);
    small += isKernelSized(below);
    const nlohmann::json doc = gen::randomCase<T>(seed, 50 + static_cast<int>(seed % 51));
    if (!isKernelSized(doc)) continue;
    ++large;
    auto loaded = parseCase<T>(doc.dump());
    ASSERT_TRUE(loaded) << loaded.error().message;
    ASSERT_EQ(doc["nodes"].size(), 2u) << doc.dump();
    EXPECT_EQ(doc["nodes"][0], (nlohmann::json{{"op", "matmul"}, {"args", {0, 1}}}));
    EXPECT_EQ(doc["nodes"][1], (nlohmann::json{{"op", "linear"}, {"args", {0, 2, 3}}}));
    const auto shapes = inputShapes(doc);
    EXPECT_EQ(loaded->graph.shapeAt(4), (Shape{shapes[0][0], shapes[1][1]}));
  }
  EXPECT_EQ(small, 0u);
  const std::size_t expected = 10 * gen::detail::kernelSizedPercent<T>();  // of 1000: 40, or 20 on intervals
  EXPECT_GE(large, expected / 2);
  EXPECT_LE(large, expected * 3 / 2);
}

// The dimensions of each carrier's kernel-sized cases: on IEEE carriers and intervals a product
// with two-vector tiles and a one-vector panel and deep folds, many rows or few; on the exact
// carriers a fold of 33 to 40 steps (more than one transpose tile) between at most 3 rows and columns.
TYPED_TEST(KernelSizes, TheDimensionsReachTheCarriersKernelPaths) {
  using T = TypeParam;
  constexpr bool plainLoops = Carrier<T>::caps.exact && !kernels::HoldsDoubles<T>;
  const std::size_t lanes = kernels::lanesOf(std::is_floating_point_v<T> ? sizeof(T) : sizeof(double));
  std::size_t deep = 0, tall = 0, few = 0;
  for (std::uint64_t seed = 0; seed < 2000; ++seed) {
    const nlohmann::json doc = gen::randomCase<T>(seed, 100);
    if (!isKernelSized(doc)) continue;
    const auto shapes = inputShapes(doc);
    const std::size_t m = shapes[0][0], k = shapes[0][1], n = shapes[1][1];
    if (plainLoops) {
      EXPECT_TRUE(m <= 3 && n <= 3 && k > kernels::kTransposeTile && k <= 40) << doc["inputs"].dump();
      continue;
    }
    EXPECT_GE(n % (2 * lanes), lanes) << "a one-vector panel beside the tiles: " << n;
    deep += m >= kernels::kTileRows && m <= 15 && k > kernels::kDepthBlock;
    tall += m > kernels::kRowBlock;
    few += m < kernels::kTileRows && n >= 4 * lanes;
  }
  if (!plainLoops) {  // of about 20 · percent kernel-sized cases: half deep, a quarter each tall and few
    const std::size_t kernelSized = 20 * gen::detail::kernelSizedPercent<T>();
    EXPECT_GE(deep, kernelSized / 4);
    EXPECT_GE(tall, kernelSized / 10);
    EXPECT_GE(few, kernelSized / 10);
  }
}

// Every kernel category of the carrier's floors is reached on 2000 cases grown as a run's, and
// the floors hold.
TYPED_TEST(KernelSizes, EveryKernelPathFloorIsReached) {
  using T = TypeParam;
  gen::CoverageTally tally;
  for (std::uint64_t i = 0; i < 2000; ++i) {
    auto loaded = parseCase<T>(gen::randomCase<T>(i * 7919 + 11, static_cast<int>(i % 100)).dump());
    ASSERT_TRUE(loaded);
    tally.add(gen::coverageTags(*loaded));
  }
  std::size_t kernelFloors = 0;
  for (const auto& floor : gen::coverageFloors<T>()) {
    if (!floor.tag.starts_with("kernel ")) continue;
    ++kernelFloors;
    EXPECT_GE(static_cast<double>(tally.count(floor.tag)), floor.minShare * 2000) << floor.tag;
  }
  EXPECT_EQ(kernelFloors, std::is_floating_point_v<T> ? 11u : kernels::HoldsDoubles<T> ? 2u : 1u);
}

// The categories read from shapes: the three products of a matmul of [5, 130] by [130, 13] on
// doubles (the forward, ct·bᵀ [5, 13]·[13, 130], aᵀ·ct [130, 5]·[5, 13]) and linear's folds.
TEST(KernelPathTags, NameThePathsOfEachProduct) {
  auto values = [](std::size_t n) {
    nlohmann::json v = nlohmann::json::array();
    for (std::size_t i = 0; i < n; ++i) v.push_back(std::to_string(i % 7 + 1));
    return v;
  };
  nlohmann::json doc = {{"tapecheck", 1},
                        {"inputs", {{{"shape", {5, 130}}}, {{"shape", {130, 13}}}, {{"shape", {130}}}, {{"shape", {5}}}}},
                        {"nodes", {{{"op", "matmul"}, {"args", {0, 1}}}, {{"op", "linear"}, {"args", {0, 2, 3}}}}},
                        {"values", {values(650), values(1690), values(130), values(5)}},
                        {"output", 4}};
  auto ieee = parseCase<double>(doc.dump());
  ASSERT_TRUE(ieee) << ieee.error().message;
  std::vector<std::string> kernelTags;
  for (const std::string& tag : gen::coverageTags(*ieee))
    if (tag.starts_with("kernel ")) kernelTags.push_back(tag);
  // 13 columns: one tile of 8, a panel of 4, one column beside; 5 rows: a tile row and one left
  // over; 130 steps: two depth blocks; aᵀ·ct has 130 rows: three row blocks. ct·bᵀ [5, 13]·[13, 130]
  // and linear's xᵀ term [1, 5]·[5, 130] (few rows, 130 columns: four vectors at a time, the last 2
  // columns alone); linear folds 5 rows, one left over beside the four, and its W term's outer
  // product has 130 columns, 2 beside the vectors; bᵀ [13, 130] is copied in 5 tiles along 130.
  EXPECT_EQ(kernelTags, (std::vector<std::string>{
                            "kernel outer product tail", "kernel product depth blocks", "kernel product few rows x4",
                            "kernel product leftover rows", "kernel product panel", "kernel product row blocks",
                            "kernel product tail columns", "kernel product tiles", "kernel row dots leftover rows",
                            "kernel transpose tiles"}));
  // On floats (8 lanes) 13 columns are one vector and 5 beside it: no tile of two vectors.
  auto narrow = parseCase<float>(doc.dump());
  ASSERT_TRUE(narrow);
  const auto floatTags = gen::coverageTags(*narrow);
  EXPECT_TRUE(std::ranges::count(floatTags, "kernel product panel"));
  // ct·bᵀ has 130 columns: 8 tiles of 16 and 2 beside the vectors, so tiles are still reached.
  EXPECT_TRUE(std::ranges::count(floatTags, "kernel product tiles"));
  // On intervals the forward runs in double (small integers fold exactly), its own paths only.
  auto interval = parseCase<Interval>(doc.dump());
  ASSERT_TRUE(interval);
  const auto intervalTags = gen::coverageTags(*interval);
  EXPECT_TRUE(std::ranges::count(intervalTags, "kernel product in double"));
  EXPECT_TRUE(std::ranges::count(intervalTags, "kernel product depth blocks"));
  EXPECT_FALSE(std::ranges::count(intervalTags, "kernel product row blocks")) << "only aᵀ·ct has 130 rows";
  // On rationals the products are plain loops: only the transpose's tiles.
  auto rational = parseCase<Rational>(doc.dump());
  ASSERT_TRUE(rational);
  std::vector<std::string> rationalKernelTags;
  for (const std::string& tag : gen::coverageTags(*rational))
    if (tag.starts_with("kernel ")) rationalKernelTags.push_back(tag);
  EXPECT_EQ(rationalKernelTags, std::vector<std::string>{"kernel transpose tiles"});
}

TEST(ProductPaths, FollowTheKernelsDispatch) {
  // doubles: 4 lanes. [4, 128] × [128, 8]: one tile, nothing left over, one depth block.
  kernels::ProductPaths p = kernels::productPaths(4, 128, 8, 8);
  EXPECT_TRUE(p.tiles);
  EXPECT_FALSE(p.panel || p.leftoverRows || p.tailColumns || p.depthBlocks || p.rowBlocks || p.fewRowsWide);
  p = kernels::productPaths(65, 129, 13, 8);
  EXPECT_TRUE(p.tiles && p.panel && p.leftoverRows && p.tailColumns && p.depthBlocks && p.rowBlocks);
  p = kernels::productPaths(3, 200, 21, 8);  // few rows: 16 columns four vectors at a time, 4 one, 1 alone
  EXPECT_TRUE(p.fewRowsWide && p.fewRowsVector && p.tailColumns);
  EXPECT_FALSE(p.tiles || p.depthBlocks);
  p = kernels::productPaths(70, 200, 3, 8);  // fewer columns than a vector: one output at a time
  EXPECT_FALSE(p.tiles || p.panel || p.tailColumns || p.depthBlocks || p.rowBlocks || p.leftoverRows);
  p = kernels::productPaths(5, 10, 12, 4);  // floats: 8 lanes, 12 columns are a panel and 4 beside
  EXPECT_TRUE(p.panel && p.tailColumns && p.leftoverRows);
  EXPECT_FALSE(p.tiles);
}

// The exact domain draws values of up to 20 significant bits on doubles (10 on floats), not only
// the two bits of the small pool, and the checker still proves every accepted case exact.
template <class T>
class WideExactValues : public ::testing::Test {};
using IeeeCarriers = ::testing::Types<double, float>;
TYPED_TEST_SUITE(WideExactValues, IeeeCarriers);

int significantBits(double v) {
  if (v == 0) return 0;
  int exponent = 0;
  auto mantissa = static_cast<std::uint64_t>(std::ldexp(std::fabs(std::frexp(v, &exponent)), 53));
  return 53 - std::countr_zero(mantissa);
}

TYPED_TEST(WideExactValues, ExactDomainValuesSpanMoreBits) {
  using T = TypeParam;
  const gen::CaseOptions exact{std::nullopt, gen::Domain::exact};
  const int most = std::is_same_v<T, float> ? 10 : 20;
  std::vector<std::size_t> byBits(54, 0);
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    auto generated = gen::generateCase<T>(seed, static_cast<int>(seed % 101), exact);
    ASSERT_TRUE(generated.loaded);
    const Case<T>& c = *generated.loaded;
    ASSERT_TRUE(spec::checkExactDomain(c.graph, *c.inputs, c.data, c.seeds));
    for (const Tensor<T>& input : *c.inputs)
      for (const T& v : input.values) ++byBits[static_cast<std::size_t>(significantBits(static_cast<double>(v)))];
  }
  std::size_t wide = 0;
  for (int bits = 0; bits < 54; ++bits) {
    EXPECT_TRUE(bits <= most || byBits[static_cast<std::size_t>(bits)] == 0) << bits << " bits";
    if (bits > most / 2) wide += byBits[static_cast<std::size_t>(bits)];
  }
  EXPECT_GE(wide, 200u) << "values of more than " << most / 2 << " significant bits";
}

// Every pooled dyadic value lies in [1/8, 16) in magnitude with 3 to `bits` significant bits, read
// exactly: a 3-bit mantissa scaled up once was written as mantissa / 2^63 (a shift by -1).
TEST(DyadicValues, StayWithinTheirMagnitudeAndBits) {
  for (const auto& [pool, most] : {std::pair{&gen::detail::kDyadicDoubleValues, 20}, std::pair{&gen::detail::kDyadicFloatValues, 10}}) {
    ASSERT_EQ(pool->size(), 512u);
    std::size_t scaledUp = 0;
    for (const std::string& text : *pool) {
      const auto read = parseValue<double>(text);
      ASSERT_TRUE(read.has_value()) << text;
      const double v = *read;
      EXPECT_GE(std::fabs(v), 0.125) << text;
      EXPECT_LT(std::fabs(v), 16.0) << text;
      EXPECT_GE(significantBits(v), 3) << text;
      EXPECT_LE(significantBits(v), most) << text;
      if (text.find('/') == std::string::npos) ++scaledUp;
    }
    EXPECT_GT(scaledUp, 0u) << "no whole number drawn: the scaled-up branch is never taken";
  }
}

}  // namespace
}  // namespace tc
