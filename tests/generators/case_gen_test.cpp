// The case generator: nothing discarded, every op reached, and shrinks that end small.
#include <gtest/gtest.h>

#include "core/ops/library.hpp"
#include "core/spec/exactness.h"
#include "core/spec/reference.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/graph/node_program.h"
#include "core/io/case_file.h"
#include "generators/case_gen.h"
#include "generators/coverage.h"
#include "generators/shrink.hpp"

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
    auto supported = ops::opsSupportedBy<T>();
    bool allowed = kind == OpKind::opaque || std::find(supported.begin(), supported.end(), kind) != supported.end();
    EXPECT_EQ(seen.contains(std::string(opName(kind))), allowed) << opName(kind);
  }
}

// A run checks generated cases loaded from the document in memory, not from its text: the case
// must be the one the saved file would load, in the default and the exact domain.
TYPED_TEST(CaseGen, AGeneratedCaseIsTheCaseItsDocumentLoadsAs) {
  using T = TypeParam;
  for (gen::Domain domain : {gen::Domain::general, gen::Domain::exact}) {
    for (std::uint64_t seed = 0; seed < 300; ++seed) {
      const gen::CaseOptions options{std::nullopt, domain};
      gen::GeneratedCase<T> generated = gen::generateCase<T>(seed, static_cast<int>(seed % 101), options);
      ASSERT_EQ(generated.doc, gen::randomCase<T>(seed, static_cast<int>(seed % 101), options));
      auto fromText = parseCase<T>(generated.doc.dump());
      ASSERT_TRUE(fromText) << fromText.error().message;
      ASSERT_TRUE(generated.loaded) << generated.loaded.error().message;
      EXPECT_EQ(writeCase(*generated.loaded), writeCase(*fromText)) << generated.doc.dump();
    }
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
    auto generated = gen::loadDoc<T>(doc);
    ASSERT_TRUE(generated) << doc.dump();
    auto [smallest, steps] = gen::shrinkWhile<T>(*generated, [&](const auto& c) { return hasMul(c.doc); });
    const nlohmann::json& small = smallest.doc;
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

// Deleting a node renumbers every position above it, and its users take its own argument of its
// shape: square deleted from neg, square, add, mul leaves neg, add(neg, x), mul(add, neg).
TEST(Shrink, DeletingANodeRenumbersThePositionsAboveIt) {
  auto doc = nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [2]}], "values": [["1", "2"]],
      "nodes": [{"op": "neg", "args": [0]}, {"op": "square", "args": [1]}, {"op": "add", "args": [2, 0]},
                {"op": "mul", "args": [3, 1]}], "output": 4, "seeds": {"4": ["1", "1"], "2": ["1", "0"]}})");
  auto loaded = parseCase<Rational>(doc.dump());
  ASSERT_TRUE(loaded) << loaded.error().message;
  auto deleted = gen::withNodeDeleted<Rational>(doc, loaded->graph, 1);
  ASSERT_TRUE(deleted);
  EXPECT_EQ((*deleted)["nodes"], nlohmann::json::parse(R"([{"op": "neg", "args": [0]}, {"op": "add", "args": [1, 0]},
      {"op": "mul", "args": [2, 1]}])"));
  EXPECT_EQ((*deleted)["output"], 3);
  EXPECT_EQ((*deleted)["seeds"], nlohmann::json::parse(R"({"1": ["1", "0"], "3": ["1", "1"]})"))
      << "the deleted position's seed goes where its users went";
  // A node whose users have no earlier position of its shape is not deleted.
  auto reshaped = nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [2]}], "values": [["1", "2"]],
      "nodes": [{"op": "sum", "args": [0]}, {"op": "neg", "args": [1]}]})");
  auto summed = parseCase<Rational>(reshaped.dump());
  ASSERT_TRUE(summed);
  EXPECT_FALSE(gen::withNodeDeleted<Rational>(reshaped, summed->graph, 0));
  EXPECT_TRUE(gen::withNodeDeleted<Rational>(reshaped, summed->graph, 1)) << "the last node: nothing uses it but the output";
}

TYPED_TEST(CaseGen, EveryShrinkLoadsAndIsStrictlySmaller) {
  using T = TypeParam;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    nlohmann::json doc = gen::randomCase<T>(seed, 60);
    for (const auto& candidate : gen::shrinksOf<T>(doc)) {
      ASSERT_TRUE(parseCase<T>(candidate.doc.dump())) << candidate.doc.dump();
      EXPECT_EQ(writeCase(*candidate.loaded), writeCase(*parseCase<T>(candidate.doc.dump())));
      EXPECT_NE(candidate.doc, doc);
    }
  }
}

// A dimension shrinks by halves, then by one slice, keeping its first slices or its last;
// dimensions of one size shrink together too. Candidates of a [3, 3] input holding 1..9 (neg):
TEST(Shrinking, SmallerDimensionsKeepAHalfOrAllButOneSliceFromEitherEnd) {
  const nlohmann::json doc = nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [3, 3]}],
      "values": [["1", "2", "3", "4", "5", "6", "7", "8", "9"]], "nodes": [{"op": "neg", "args": [0]}]})");
  std::set<std::pair<std::vector<std::size_t>, std::vector<std::string>>> resized;
  for (const auto& candidate : gen::shrinksOf<Rational>(doc))
    if (candidate.doc["inputs"][0]["shape"] != doc["inputs"][0]["shape"])
      resized.emplace(candidate.doc["inputs"][0]["shape"], candidate.doc["values"][0]);
  using Block = std::pair<std::vector<std::size_t>, std::vector<std::string>>;
  EXPECT_EQ(resized, (std::set<Block>{{{1, 1}, {"1"}},
                                      {{1, 1}, {"9"}},
                                      {{2, 2}, {"1", "2", "4", "5"}},
                                      {{2, 2}, {"5", "6", "8", "9"}},
                                      {{1, 3}, {"1", "2", "3"}},
                                      {{1, 3}, {"7", "8", "9"}},
                                      {{2, 3}, {"1", "2", "3", "4", "5", "6"}},
                                      {{2, 3}, {"4", "5", "6", "7", "8", "9"}},
                                      {{3, 1}, {"1", "4", "7"}},
                                      {{3, 1}, {"3", "6", "9"}},
                                      {{3, 2}, {"1", "2", "4", "5", "7", "8"}},
                                      {{3, 2}, {"2", "3", "5", "6", "8", "9"}}}));
}

// A stand-in for a fault that shows only on a square left factor (mutant 4's matmul term): a
// 12 x 12 product shrinks to [2, 2] x [2, 1] in a few halvings. Shrinking one dimension at a time
// stopped at [12, 12] x [12, 1]: any one of the shared or square dimensions alone breaks the case.
TEST(Shrinking, SharedDimensionsShrinkTogetherByHalves) {
  std::vector<std::string> values(144, "2");
  const nlohmann::json doc = {{"tapecheck", 1},
                              {"inputs", {{{"shape", {12, 12}}}, {{"shape", {12, 12}}}}},
                              {"values", {values, values}},
                              {"nodes", {{{"op", "matmul"}, {"args", {0, 1}}}}}};
  auto failsOnSquare = [](const gen::LoadedDoc<Rational>& c) {
    const Graph<Rational>& g = c.loaded->graph;
    if (g.nodes.empty() || g.nodes[0].op != OpKind::matmul) return false;
    const Shape& a = g.shapeAt(g.nodes[0].args[0]);
    return a[0] == a[1] && a[0] >= 2;
  };
  auto [smallest, steps] = gen::shrinkWhile<Rational>(*gen::loadDoc<Rational>(doc), failsOnSquare);
  EXPECT_EQ(smallest.doc["inputs"], nlohmann::json::parse(R"([{"shape": [2, 2]}, {"shape": [2, 1]}])"));
  EXPECT_LE(steps, 8u) << smallest.doc.dump();
}

// A failure at one element far from the first: a 40 x 60 input whose element [29, 47] alone is
// not 0 shrinks to that element, [1, 1], in a logarithmic number of steps.
TEST(Shrinking, ADimensionKeepsItsLastSlicesWhereTheFailureIsThere) {
  std::vector<std::string> values(40 * 60, "0");
  values[29 * 60 + 47] = "5";
  const nlohmann::json doc = {{"tapecheck", 1},
                              {"inputs", {{{"shape", {40, 60}}}}},
                              {"values", {values}},
                              {"nodes", {{{"op", "neg"}, {"args", {0}}}}}};
  auto holdsFive = [](const gen::LoadedDoc<Rational>& c) {
    for (const auto& v : c.doc["values"][0])
      if (v == "5") return !c.doc["nodes"].empty();
    return false;
  };
  auto [smallest, steps] = gen::shrinkWhile<Rational>(*gen::loadDoc<Rational>(doc), holdsFive);
  EXPECT_EQ(smallest.doc["inputs"], nlohmann::json::parse(R"([{"shape": [1, 1]}])"));
  EXPECT_LE(steps, 20u) << smallest.doc.dump();
}

// Every tensor that shares a size shrinks with the inputs: a data tensor (mask's), a seed, and a
// node's optional "shape" key is dropped. The failure needs the seed's element 6 (a 7) and both nodes.
TEST(Shrinking, DataSeedsAndNodeShapesShrinkWithTheInputs) {
  const nlohmann::json doc = nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [8]}],
      "data": {"m": {"shape": [8], "values": ["1", "0", "1", "1", "0", "1", "1", "0"]}},
      "nodes": [{"op": "mask", "args": [0], "attrs": {"key": "m"}, "shape": [8]}, {"op": "neg", "args": [1]}],
      "values": [["3", "1", "4", "1", "5", "9", "2", "6"]], "seed": ["1", "1", "1", "1", "1", "1", "7", "1"]})");
  auto needsTheSeven = [](const gen::LoadedDoc<Rational>& c) {
    if (c.doc["nodes"].size() != 2 || !c.doc.contains("seed")) return false;
    for (const auto& v : c.doc["seed"])
      if (v == "7") return true;
    return false;
  };
  auto [smallest, steps] = gen::shrinkWhile<Rational>(*gen::loadDoc<Rational>(doc), needsTheSeven);
  EXPECT_EQ(smallest.doc["inputs"], nlohmann::json::parse(R"([{"shape": [1]}])")) << smallest.doc.dump();
  EXPECT_EQ(smallest.doc["data"]["m"]["shape"], nlohmann::json::parse("[1]"));
  EXPECT_EQ(smallest.doc["seed"], nlohmann::json::parse(R"(["7"])"));
}

// The same with a constant, a "seeds" pack and an "output" before the last node: the const's
// [6] values, the input and the seed at position 2 all shrink to the element the failure needs.
TEST(Shrinking, ConstantsAndSeedPacksShrinkWithTheInputs) {
  const nlohmann::json doc = nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": [6]}],
      "nodes": [{"op": "const", "attrs": {"shape": [6], "values": ["1", "2", "3", "4", "5", "6"]}},
                {"op": "add", "args": [0, 1]}, {"op": "neg", "args": [2]}],
      "values": [["0", "0", "0", "0", "8", "0"]], "output": 2, "seeds": {"2": ["1", "1", "1", "1", "7", "1"]}})");
  auto needsAllThree = [](const gen::LoadedDoc<Rational>& c) {
    auto holds = [](const nlohmann::json& values, const char* v) {
      return std::any_of(values.begin(), values.end(), [&](const auto& x) { return x == v; });
    };
    return c.doc["nodes"].size() == 3 && c.doc["nodes"][0]["op"] == "const" && c.doc.contains("seeds") &&
           c.doc["seeds"].contains("2") && holds(c.doc["seeds"]["2"], "7") && holds(c.doc["values"][0], "8") &&
           holds(c.doc["nodes"][0]["attrs"]["values"], "5");
  };
  auto [smallest, steps] = gen::shrinkWhile<Rational>(*gen::loadDoc<Rational>(doc), needsAllThree);
  EXPECT_EQ(smallest.doc["inputs"], nlohmann::json::parse(R"([{"shape": [1]}])")) << smallest.doc.dump();
  EXPECT_EQ(smallest.doc["nodes"][0]["attrs"]["values"], nlohmann::json::parse(R"(["5"])"));
  EXPECT_EQ(smallest.doc["seeds"]["2"], nlohmann::json::parse(R"(["7"])"));
}

// A "seed" beside a "seeds" pack is not read (docs/file-format.md#keys): shrinking leaves it alone,
// and ends even when every candidate keeps the failure.
TEST(Shrinking, ASeedTheLoaderDoesNotReadIsNotCutAndShrinkingEnds) {
  const nlohmann::json doc = nlohmann::json::parse(R"({"tapecheck": 1, "inputs": [{"shape": []}],
      "nodes": [{"op": "broadcast", "args": [0], "attrs": {"shape": [3, 3]}}], "values": [["2"]],
      "seeds": {"0": ["1"]}, "seed": ["1", "1", "1", "1", "1", "1", "1", "1", "1"]})");
  for (const auto& candidate : gen::shrinksOf<Rational>(doc))
    if (candidate.doc.contains("seed")) {
      EXPECT_EQ(candidate.doc["seed"].size(), 9u) << candidate.doc.dump();
    }
  auto [smallest, steps] = gen::shrinkWhile<Rational>(*gen::loadDoc<Rational>(doc), [](const auto&) { return true; });
  EXPECT_LT(steps, 20u) << smallest.doc.dump();
}

// Target shapes shrink with the tensors: a reshape of [6, 4] to [4, 6] shares both sizes with its
// input, a broadcast to [5, 4, 6] adds a leading 5 of its own. The failure needs both nodes.
TEST(Shrinking, ReshapeAndBroadcastTargetsShrinkWithTheirInputs) {
  const nlohmann::json doc = {{"tapecheck", 1},
                              {"inputs", {{{"shape", {6, 4}}}}},
                              {"values", {std::vector<std::string>(24, "3")}},
                              {"nodes",
                               {{{"op", "reshape"}, {"args", {0}}, {"attrs", {{"shape", {4, 6}}}}},
                                {{"op", "broadcast"}, {"args", {1}}, {"attrs", {{"shape", {5, 4, 6}}}}}}}};
  auto needsBoth = [](const gen::LoadedDoc<Rational>& c) {
    return c.doc["nodes"].size() == 2 && c.doc["nodes"][0]["op"] == "reshape" && c.doc["nodes"][1]["op"] == "broadcast";
  };
  auto [smallest, steps] = gen::shrinkWhile<Rational>(*gen::loadDoc<Rational>(doc), needsBoth);
  EXPECT_EQ(smallest.doc["inputs"], nlohmann::json::parse(R"([{"shape": [1, 1]}])")) << smallest.doc.dump();
  EXPECT_EQ(smallest.doc["nodes"][0]["attrs"]["shape"], nlohmann::json::parse("[1, 1]"));
  EXPECT_EQ(smallest.doc["nodes"][1]["attrs"]["shape"], nlohmann::json::parse("[1, 1, 1]"));
  EXPECT_LE(steps, 12u);
}

// A slice's start and length shrink (toward row 0, one row), so that the dimension it slices can
// shrink under it: rows [29, 34) of a [40, 3] input end as row 0 of a [1, 1] input. (Cut alone,
// the input keeps at least 34 rows.) The failure needs the slice and a 5 in its input. As in a
// saved failure, the node declares its shape and a seed pack seeds both positions: a smaller slice
// drops them (the seed at the input stays, and shrinks with it).
TEST(Shrinking, ASliceShrinksSoThatItsInputCan) {
  std::vector<std::string> values(40 * 3, "0");
  values[31 * 3 + 2] = "5";
  const nlohmann::json doc = {
      {"tapecheck", 1},
      {"inputs", {{{"shape", {40, 3}}}}},
      {"values", {values}},
      {"nodes", {{{"op", "slice0"}, {"args", {0}}, {"attrs", {{"start", 29}, {"len", 5}}}, {"shape", {5, 3}}}}},
      {"seeds", {{"0", std::vector<std::string>(120, "1")}, {"1", std::vector<std::string>(15, "2")}}}};
  auto slicesAFive = [](const gen::LoadedDoc<Rational>& c) {
    const auto& v = c.doc["values"][0];
    return c.doc["nodes"].size() == 1 && c.doc["nodes"][0]["op"] == "slice0" &&
           std::find(v.begin(), v.end(), "5") != v.end();
  };
  auto [smallest, steps] = gen::shrinkWhile<Rational>(*gen::loadDoc<Rational>(doc), slicesAFive);
  EXPECT_EQ(smallest.doc["inputs"], nlohmann::json::parse(R"([{"shape": [1, 1]}])")) << smallest.doc.dump();
  EXPECT_EQ(smallest.doc["nodes"][0]["attrs"], nlohmann::json::parse(R"({"start": 0, "len": 1})"));
  EXPECT_EQ(smallest.doc["seeds"], nlohmann::json::parse(R"({"0": ["0"]})"));  // simplified too
  EXPECT_LE(steps, 20u);
}

// `check`'s draws of a large tensor on an IEEE carrier: half leave out NaN and the infinities, so
// that its arithmetic is judged (one non-finite value among 10,000 would stop most nodes); the
// others hold them in about 2.4% of their elements.
TEST(RandomValues, HalfTheIeeeDrawsAreFinite) {
  auto b = *GraphBuilder<double>::create({{100, 100}});
  b.add(OpKind::neg, {0}).value();
  const Case<double> c{std::move(b).build(), std::nullopt, {}, 1, {}, {}};
  std::size_t finiteDraws = 0;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    const Case<double> drawn = gen::withRandomValues(c, seed);
    const Tensor<double>& x = drawn.inputs->front();
    const auto nonFinite = std::count_if(x.values.begin(), x.values.end(), [](double v) { return !std::isfinite(v); });
    if (nonFinite == 0) ++finiteDraws;
    else EXPECT_GT(nonFinite, 100) << seed;  // 2.4% of 10,000 is 240
  }
  EXPECT_GE(finiteDraws, 12u);
  EXPECT_LE(finiteDraws, 28u);
}

// The spread draws `check` gives a property that compares off kinks: on |x - y| over 64 elements the
// pools' draws put some element at the kink of abs (a zero, or x and y tied) in every case, the
// spread's in few. No spread value is a zero, and every carrier reads them (ModP has no kinks).
TYPED_TEST(CaseGen, SpreadInputsAreNonzeroAndRarelyAtAKink) {
  using T = TypeParam;
  auto b = *GraphBuilder<T>::create({{64}, {64}});
  const std::size_t difference = *b.add(OpKind::sub, {0, 1});
  if constexpr (Carrier<T>::caps.ordered) b.add(OpKind::abs, {difference}).value();
  const Case<T> c{std::move(b).build(), std::nullopt, {}, difference, {}, {}};
  gen::CaseOptions clearOfKinks;
  clearOfKinks.avoidKinks = true;
  std::size_t spreadClear = 0, pooledClear = 0;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const Case<T> spread = gen::withRandomValues(c, seed, gen::Domain::general, gen::Values::spread);
    for (const Tensor<T>& input : *spread.inputs)
      for (const T& v : input.values) ASSERT_FALSE(Carrier<T>::same(v, zero<T>())) << seed;
    spreadClear += gen::meetsOptions(spread, clearOfKinks);
    pooledClear += gen::meetsOptions(gen::withRandomValues(c, seed), clearOfKinks);
  }
  if constexpr (Carrier<T>::caps.ordered) {
    EXPECT_GE(spreadClear, 17u);  // a tie among 64 pairs of 2,046 values: about 3% of the draws
    EXPECT_LE(pooledClear, 2u);   // the pools tie one pair in 9 (exact carriers) or 16 (IEEE): 0.05% or 1.6% clear
  }
}

// The exact domain draws +0 only, unless signedZeros asks for −0 too (forward_oracle's cases): then
// −0 reaches relu, abs, clamp, max or min in some cases, and every case is still proven exact.
TEST(CaseGenSignedZeros, OnlyTheCasesThatAskForThemHoldMinusZeroInTheExactDomain) {
  auto negativeZeros = [](const Case<double>& c) {
    std::size_t n = 0;
    for (const Tensor<double>& input : *c.inputs)
      n += std::ranges::count_if(input.values, [](double v) { return v == 0 && std::signbit(v); });
    return n;
  };
  gen::CaseOptions exact{std::nullopt, gen::Domain::exact};
  gen::CaseOptions signedZeros = exact;
  signedZeros.signedZeros = true;
  std::size_t withMinusZero = 0, intoKinkedOp = 0;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    const int size = static_cast<int>(seed % 100);
    auto plain = parseCase<double>(gen::randomCase<double>(seed, size, exact).dump());
    ASSERT_TRUE(plain) << seed;
    EXPECT_EQ(negativeZeros(*plain), 0u) << seed;
    auto asked = parseCase<double>(gen::randomCase<double>(seed, size, signedZeros).dump());
    ASSERT_TRUE(asked) << seed;
    EXPECT_TRUE(gen::meetsOptions(*asked, signedZeros)) << seed;
    withMinusZero += negativeZeros(*asked) > 0;
    const auto tags = gen::coverageTags(*asked);
    intoKinkedOp += std::ranges::find(tags, "-0 into relu, abs, clamp, max or min") != tags.end();
  }
  EXPECT_GE(withMinusZero, 30u);  // 63 at this writing
  EXPECT_GE(intoKinkedOp, 6u);    // 16
}

// The floors `tapecheck run` enforces hold on 1000 cases grown like a run's (sizes 0 to 100).
TYPED_TEST(CaseGen, CoverageFloorsHold) {
  using T = TypeParam;
  gen::CoverageTally tally;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    auto loaded = parseCase<T>(gen::randomCase<T>(i * 7919 + 11, static_cast<int>(i % 100)).dump());
    ASSERT_TRUE(loaded);
    tally.add(gen::coverageTags(*loaded));
  }
  EXPECT_EQ(tally.shortfalls(gen::coverageFloors<T>()), std::vector<std::string>{});
  for (const auto& floor : gen::coverageFloors<T>()) EXPECT_GT(tally.count(floor.tag), 0u) << floor.tag;
}

// The exact domain: every case is proven exact, no op outside the domain appears, and the
// domain's own floors hold (every op it allows is reached).
template <class T>
class ExactDomain : public ::testing::Test {};
using IeeeCarriers = ::testing::Types<double, float>;
TYPED_TEST_SUITE(ExactDomain, IeeeCarriers);

TYPED_TEST(ExactDomain, CasesAreProvenExactAndReachEveryOpTheDomainAllows) {
  using T = TypeParam;
  const gen::CaseOptions exact{std::nullopt, gen::Domain::exact};
  gen::CoverageTally tally;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    nlohmann::json doc = gen::randomCase<T>(i * 7919 + 11, static_cast<int>(i % 100), exact);
    auto loaded = parseCase<T>(doc.dump());
    ASSERT_TRUE(loaded);
    ASSERT_TRUE(spec::checkExactDomain(loaded->graph, *loaded->inputs, loaded->data, loaded->seeds)) << doc.dump();
    for (const auto& node : loaded->graph.nodes) ASSERT_TRUE(ops::inExactDomain(node.op)) << opName(node.op);
    tally.add(gen::coverageTags(*loaded));
  }
  const auto floors = gen::coverageFloors<T>(exact);
  EXPECT_EQ(tally.shortfalls(floors), std::vector<std::string>{});
  std::size_t opFloors = 0;
  for (const auto& floor : floors) {
    EXPECT_GT(tally.count(floor.tag), 0u) << floor.tag;
    opFloors += floor.tag.starts_with("op ");
  }
  EXPECT_EQ(tally.count("IEEE special value"), 0u);
  EXPECT_EQ(tally.count("op div") + tally.count("op inv") + tally.count("op exp"), 0u);
  EXPECT_EQ(opFloors, 27u) << "the 39 ops of the library but div, inv and the ten transcendental ones";
}

// For an engine whose kink conventions are unknown, generated cases keep away from every kink.
TEST(CaseOptions, AvoidingKinksDrawsNoCaseAtAKink) {
  auto atAnyKink = [](const Case<double>& c) {
    auto context = spec::eval(c.graph, *c.inputs, c.data);
    if (!context) return false;
    for (std::size_t p = c.graph.inputs.size(); p < c.graph.positionCount(); ++p)
      if (atKink(c.graph, *context, c.data, p)) return true;
    return false;
  };
  for (gen::Domain domain : {gen::Domain::general, gen::Domain::exact}) {
    std::size_t atKinks = 0, avoided = 0;
    for (std::uint64_t i = 0; i < 300; ++i) {
      auto usual = parseCase<double>(gen::randomCase<double>(i, 60, {std::nullopt, domain}).dump());
      auto away = parseCase<double>(gen::randomCase<double>(i, 60, {std::nullopt, domain, true}).dump());
      ASSERT_TRUE(usual && away);
      atKinks += atAnyKink(*usual);
      avoided += atAnyKink(*away);
    }
    EXPECT_GT(atKinks, 30u) << "kinks are common in generated cases, so avoiding them is a real filter";
    EXPECT_EQ(avoided, 0u) << gen::domainName(domain);
  }
}

TEST(CoverageTags, NameTheStructureOfACase) {
  auto c = parseCase<Rational>(R"({"tapecheck": 1, "inputs": [{"shape": [2]}, {"shape": [2, 1, 2]}],
      "nodes": [{"op": "add", "args": [0, 0]}, {"op": "opaque", "args": [2], "attrs": {"name": "twice"}},
                {"op": "inv", "args": [0]}],
      "values": [["0", "1"], ["1", "2", "3", "4"]], "output": 3})");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(gen::coverageTags(*c),
            (std::vector<std::string>{"domain failure", "fan-out", "op add", "op inv", "opaque twice", "output at intermediate",
                                      "rank 1", "rank 3", "repeated argument", "single seed", "unused node"}));
}

// 1000 cases, `reached` of them in "op matmul", every one in "fan-out".
gen::CoverageTally tallyReaching(std::size_t reached, std::size_t cases = 1000) {
  gen::CoverageTally tally;
  for (std::size_t i = 0; i < cases; ++i)
    tally.add(i < reached ? std::vector<std::string>{"op matmul", "fan-out"} : std::vector<std::string>{"fan-out"});
  return tally;
}

TEST(CoverageTally, ShortfallsNameTheCategoryItsShareAndFloor) {
  // 5 of 1000 where the floor is 2% (20 expected): a count that low has probability 1.7e-4 at the floor.
  const gen::CoverageTally tally = tallyReaching(5);
  std::vector<gen::CoverageFloor> floors{{"op matmul", 0.02}, {"fan-out", 0.5}, {"opaque twice", 0.01}};
  EXPECT_EQ(tally.shortfalls(floors),
            (std::vector<std::string>{"op matmul: 0.5% of 1000 cases, floor 2%", "opaque twice: 0.0% of 1000 cases, floor 1%"}));
}

// A share a little below its floor is the noise of a finite sample, not a generator that stopped
// reaching the category: --cases 27 failed a correct engine this way on 432 cases.
TEST(CoverageTally, AShareJustBelowItsFloorIsNoiseNotAMiss) {
  EXPECT_TRUE(tallyReaching(17).shortfalls({{"op matmul", 0.02}}).empty());   // 1.7% of 1000, floor 2%: p = 0.29
  EXPECT_TRUE(tallyReaching(10).shortfalls({{"op matmul", 0.02}}).empty());   // 1.0%: p = 0.011
  EXPECT_FALSE(tallyReaching(7).shortfalls({{"op matmul", 0.02}}).empty());   // 0.7%: p = 8.8e-4
}

// A floor so small that even a count of 0 would be likely at it is not judged (nor passed): the run
// lists it with the cases it needs.
TEST(CoverageTally, AFloorTooSmallForTheCasesIsNotJudged) {
  const gen::CoverageFloor rare{"op matmul", 0.002};
  const std::size_t needed = gen::casesToJudge(rare.minShare);
  EXPECT_EQ(needed, 3451u);  // the least n with 0.998^n < 1e-3
  EXPECT_GE(std::pow(1 - rare.minShare, static_cast<double>(needed - 1)), gen::kFloorSignificance);
  EXPECT_LT(std::pow(1 - rare.minShare, static_cast<double>(needed)), gen::kFloorSignificance);
  const gen::CoverageTally few = tallyReaching(0, needed - 1), enough = tallyReaching(0, needed);
  EXPECT_FALSE(few.judges(rare));
  EXPECT_FALSE(few.misses(rare));
  EXPECT_TRUE(enough.judges(rare));
  EXPECT_TRUE(enough.misses(rare));
  EXPECT_EQ(gen::casesToJudge(0.5), gen::kMinCasesForFloors);  // common floors: from the minimum on
}

TEST(CoverageTally, FloorsAreNotJudgedOnTooFewCases) {
  gen::CoverageTally tally;
  tally.add({"fan-out"});
  EXPECT_EQ(tally.shortfalls({{"op matmul", 0.5}}), std::vector<std::string>{});
}

}  // namespace
}  // namespace tc
