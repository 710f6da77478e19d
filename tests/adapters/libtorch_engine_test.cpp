// The libtorch adapter (adapters/libtorch), in process: PyTorch's kernels pass every engine
// property in the exact domain (where every correct engine returns the same bits); hand-made cases
// pin its terms, its choice at relu's kink and the positions that receive cotangent without passing
// any on; log fails with the specification's message; and it announces the Python adapter's
// profile, so the two adapters check the same thing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "adapters/libtorch/libtorch_engine.h"
#include "core/io/case_file.h"
#include "tests/support/engine_cases.h"
#include "properties/engines/profile_json.h"
#include "properties/runner/runner.h"

namespace tc {
namespace {

template <class T>
std::unique_ptr<const Execution<T>> compiled(const Case<T>& c) {
  return testing::compiledBy<T>(libtorch::Engine<T>(), c);
}

// Position p's values as doubles (exact for float), for EXPECT_EQ with a literal list.
template <class T>
std::vector<double> at(const Pack<T>& pack, std::size_t p) {
  return {pack[p].values.begin(), pack[p].values.end()};
}

template <class T>
class LibtorchEngine : public ::testing::Test {};
using IeeeCarriers = ::testing::Types<double, float>;
TYPED_TEST_SUITE(LibtorchEngine, IeeeCarriers);

// Under the Python adapter's policy and profile, as `tapecheck run --engine-cmd` checks it.
TYPED_TEST(LibtorchEngine, PassesEveryEnginePropertyInTheExactDomain) {
  using T = TypeParam;
  libtorch::Engine<T> engine;
  testing::expectEveryEnginePropertyPassesInTheExactDomain<T>({engine, props::Policy::values, libtorch::profile()}, 300,
                                                              200);
}

// mul(x, x): one tensor at x, two edges into it; its gradient is ct·x + ct·x = 2x.
TYPED_TEST(LibtorchEngine, MulOfARepeatedArgumentHasGradientTwiceIt) {
  using T = TypeParam;
  Case<T> c = testing::loadedCase<T>(R"({"tapecheck": 1, "inputs": [{"shape": [3]}], "nodes": [{"op": "mul", "args": [0, 0]}],
                            "values": [["3", "-3/2", "1/4"]], "seed": ["1", "1", "1"]})");
  auto execution = compiled(c);
  EXPECT_EQ(at(execution->context(), 1), (std::vector<double>{9, 2.25, 0.0625}));
  EXPECT_EQ(at(*execution->backwardDense(c.seeds), 0), (std::vector<double>{6, -3, 0.5}));
  EXPECT_EQ(at(execution->backwardSingle(1, c.seeds[1])->gradients, 0), (std::vector<double>{6, -3, 0.5}));
}

// PyTorch's relu passes no cotangent at 0 (the profile's kink "zero"), nor at -0 or below.
TYPED_TEST(LibtorchEngine, ReluAtZeroPassesNoCotangent) {
  using T = TypeParam;
  Case<T> c = testing::loadedCase<T>(R"({"tapecheck": 1, "inputs": [{"shape": [4]}], "nodes": [{"op": "relu", "args": [0]}],
                            "values": [["0", "-0", "-1", "2"]], "seed": ["5", "5", "5", "5"]})");
  auto execution = compiled(c);
  EXPECT_EQ(at(execution->context(), 1), (std::vector<double>{0, 0, 0, 2}));
  EXPECT_EQ(at(*execution->backwardDense(c.seeds), 0), (std::vector<double>{0, 0, 0, 5}));
}

// const (position 1) and detach (position 2) are leaves: each receives its seed and the cotangent
// of what uses it, and passes nothing on (x keeps its seed only).
TYPED_TEST(LibtorchEngine, ConstAndDetachReceiveCotangentAndPassNoneOn) {
  using T = TypeParam;
  Case<T> c = testing::loadedCase<T>(R"({"tapecheck": 1, "inputs": [{"shape": [2]}],
      "nodes": [{"op": "const", "attrs": {"shape": [2], "values": ["1/2", "-3"]}}, {"op": "detach", "args": [0]},
                {"op": "mul", "args": [1, 2]}],
      "values": [["4", "5"]], "seeds": {"0": ["1", "1"], "1": ["10", "20"], "2": ["100", "200"], "3": ["1", "2"]}})");
  auto execution = compiled(c);
  EXPECT_EQ(at(execution->context(), 3), (std::vector<double>{2, -15}));
  Pack<T> dense = *execution->backwardDense(c.seeds);
  EXPECT_EQ(at(dense, 0), (std::vector<double>{1, 1}));
  EXPECT_EQ(at(dense, 1), (std::vector<double>{14, 30}));
  EXPECT_EQ(at(dense, 2), (std::vector<double>{100.5, 194}));
  EXPECT_EQ(at(dense, 3), (std::vector<double>{1, 2}));
  Pack<T> single = execution->backwardSingle(3, c.seeds[3])->gradients;
  EXPECT_EQ(at(single, 0), (std::vector<double>{0, 0}));
  EXPECT_EQ(at(single, 1), (std::vector<double>{4, 10}));
  EXPECT_EQ(at(single, 2), (std::vector<double>{0.5, -6}));
}

// A reshape to the same shape is its own position: a seed given to it does not reach x twice.
TYPED_TEST(LibtorchEngine, EveryPositionIsItsOwnTensor) {
  using T = TypeParam;
  Case<T> c = testing::loadedCase<T>(R"({"tapecheck": 1, "inputs": [{"shape": [2]}],
      "nodes": [{"op": "reshape", "args": [0], "attrs": {"shape": [2]}}],
      "values": [["4", "5"]], "seeds": {"0": ["10", "10"], "1": ["1", "2"]}})");
  Pack<T> dense = *compiled(c)->backwardDense(c.seeds);
  EXPECT_EQ(at(dense, 0), (std::vector<double>{11, 12}));
  EXPECT_EQ(at(dense, 1), (std::vector<double>{1, 2}));
}

// log fails where the specification's domain check does, with its message, naming the position.
TYPED_TEST(LibtorchEngine, LogOfANonPositiveValueOrNaNFailsLikeTheSpecification) {
  using T = TypeParam;
  for (const char* bad : {"0", "-1", "nan"}) {
    Case<T> c = testing::loadedCase<T>(std::string(R"({"tapecheck": 1, "inputs": [{"shape": [3]}],
        "nodes": [{"op": "exp", "args": [0]}, {"op": "log", "args": [0]}], "values": [["2", ")") + bad + R"(", "1"]]})");
    auto ours = libtorch::Engine<T>().compile(c.graph, *c.inputs, c.data);
    ASSERT_FALSE(ours) << bad;
    EXPECT_EQ(ours.error().message, "node 2 (log): input contains values <= 0 or NaN");
    auto theirs = builtinEngine<T>("compiled").compile(c.graph, *c.inputs, c.data);
    ASSERT_FALSE(theirs);
    EXPECT_EQ(ours.error().message, theirs.error().message);
  }
}

// The first line a command prints with empty standard input: an engine's hello.
std::string helloOf(const std::string& command) {
  std::FILE* pipe = popen((command + " </dev/null 2>/dev/null").c_str(), "r");
  if (!pipe) return "";
  std::string line;
  for (int c = std::fgetc(pipe); c != EOF && c != '\n'; c = std::fgetc(pipe)) line.push_back(static_cast<char>(c));
  pclose(pipe);
  return line;
}

// Every field but the name, as profileToJson writes it (so the two are compared as read).
nlohmann::json withoutName(const EngineProfile& profile) {
  nlohmann::json json = profileToJson(profile);
  json.erase("name");
  return json;
}

TEST(LibtorchProfile, IsThePythonAdaptersUnderAnotherName) {
  if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 cannot import torch (scripts/setup.sh --test installs python3-torch)";
  nlohmann::json hello = nlohmann::json::parse(
      helloOf("/usr/bin/python3 '" TAPECHECK_SOURCE_DIR "/adapters/python/torch_engine.py'"));
  auto python = profileFromJson(hello.at("profile"));
  ASSERT_TRUE(python) << python.error().message;
  EXPECT_EQ(python->name, "torch");
  EXPECT_EQ(hello.at("policy"), "values");
  EXPECT_EQ(libtorch::profile().name, "libtorch");
  EXPECT_EQ(withoutName(libtorch::profile()), withoutName(*python));
}

// The served engine says hello with that profile and the Python adapter's policy.
TEST(LibtorchProfile, IsWhatTheServedEngineAnnounces) {
  nlohmann::json hello = nlohmann::json::parse(helloOf("'" TAPECHECK_LIBTORCH_ENGINE "'"));
  EXPECT_EQ(hello.at("policy"), "values");
  EXPECT_EQ(hello.at("profile"), profileToJson(libtorch::profile()));
}

}  // namespace
}  // namespace tc
