// `tapecheck grad` as a user runs it: output, exit status, and one-line errors.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "tests/cli/run_tapecheck.h"

namespace {

using tc::testing::CommandRun;
using tc::testing::runTapecheck;
using tc::testing::source;

TEST(GradCommand, JsonOutputHoldsContextAndGradientsAsExactStrings) {
  CommandRun run = runTapecheck("grad " + source("examples/graphs/readme.json") + " --format json");
  ASSERT_EQ(run.status, 0) << run.err;
  auto doc = nlohmann::json::parse(run.out);
  ASSERT_EQ(doc["context"].size(), 5u);
  ASSERT_EQ(doc["gradients"].size(), 5u);
  EXPECT_EQ(doc["context"][4]["values"], nlohmann::json({"-3/4", "0"}));
  EXPECT_EQ(doc["gradients"][0]["shape"], nlohmann::json({2, 3}));
  EXPECT_EQ(doc["gradients"][0]["values"], nlohmann::json({"-1/2", "-1/4", "-1", "0", "0", "0"}));
  EXPECT_EQ(doc["gradients"][1]["values"], nlohmann::json({"-1/2", "1", "-3/8"}));
}

TEST(GradCommand, EveryCarrierRunsTheExample) {
  for (std::string carrier : {"rational", "modp", "double", "float"}) {
    CommandRun run = runTapecheck("grad " + source("examples/graphs/readme.json") + " --format json --carrier " + carrier);
    ASSERT_EQ(run.status, 0) << carrier << ": " << run.err;
    EXPECT_EQ(nlohmann::json::parse(run.out)["carrier"], carrier);
  }
  CommandRun single = runTapecheck("grad " + source("examples/graphs/readme.json") + " --format json --carrier float");
  EXPECT_EQ(nlohmann::json::parse(single.out)["gradients"][1]["values"], nlohmann::json({"-0.5", "1", "-0.375"}));
}

TEST(GradCommand, TextOutputListsEveryPosition) {
  CommandRun run = runTapecheck("grad " + source("examples/graphs/readme.json"));
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("scale(3) c=-1/2  [2]"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("gradient  -1/2 1 -3/8"), std::string::npos) << run.out;
}

TEST(GradCommand, DomainFailureExitsOneWithTheNodeError) {
  CommandRun run = runTapecheck("grad " + source("tests/cli/data/log_at_zero.json") + " --carrier double");
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.err, "tapecheck: " + source("tests/cli/data/log_at_zero.json") +
                         ": node 1 (log): input contains values <= 0 or NaN\n");
}

TEST(GradCommand, InvalidInputExitsTwoWithOneLine) {
  const std::string logFile = source("tests/cli/data/log_at_zero.json");
  for (const std::string& arguments : std::vector<std::string>{"grad " + logFile,  // log needs transcendental functions
                                "grad " + source("tests/cli/data/no_values.json"), "grad /nonexistent.json",
                                "grad " + logFile + " --carrier complex", "grad", "", "frobnicate",
                                "grad " + logFile + " --format yaml"}) {
    CommandRun run = runTapecheck(arguments);
    EXPECT_EQ(run.status, 2) << arguments;
    ASSERT_FALSE(run.err.empty()) << arguments;
    EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << arguments << ": " << run.err;
    EXPECT_EQ(run.err.rfind("tapecheck: ", 0), 0u) << run.err;
  }
}

TEST(GradCommand, EveryEngineGivesTheSameContextAndGradients) {
  for (std::string carrier : {"rational", "float"}) {
    std::vector<nlohmann::json> outputs;
    for (std::string engine : {"reference", "tape", "compiled"}) {
      CommandRun run = runTapecheck("grad " + source("examples/graphs/readme.json") + " --format json --carrier " +
                                    carrier + " --engine " + engine);
      ASSERT_EQ(run.status, 0) << engine << ": " << run.err;
      auto doc = nlohmann::json::parse(run.out);
      EXPECT_EQ(doc["engine"], engine);
      outputs.push_back({doc["context"], doc["gradients"]});
    }
    EXPECT_EQ(outputs[0], outputs[1]) << carrier;
    EXPECT_EQ(outputs[0], outputs[2]) << carrier;
  }
}

TEST(GradCommand, SingleOutputReportsTheProgramsRun) {
  CommandRun run = runTapecheck("grad " + source("examples/graphs/readme.json") + " --format json --single");
  ASSERT_EQ(run.status, 0) << run.err;
  auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["programs_run"], 3);
  EXPECT_EQ(doc["gradients"][1]["values"], nlohmann::json({"-1/2", "1", "-3/8"}));
  CommandRun text = runTapecheck("grad " + source("examples/graphs/readme.json") + " --single");
  EXPECT_NE(text.out.find("node programs run: 3 of 3"), std::string::npos) << text.out;
}

TEST(GradCommand, DomainFailureIsIdenticalOnEveryEngine) {
  for (std::string engine : {"reference", "tape", "compiled"}) {
    CommandRun run =
        runTapecheck("grad " + source("tests/cli/data/log_at_zero.json") + " --carrier float --engine " + engine);
    EXPECT_EQ(run.status, 1) << engine;
    EXPECT_EQ(run.err, "tapecheck: " + source("tests/cli/data/log_at_zero.json") +
                           ": node 1 (log): input contains values <= 0 or NaN\n")
        << engine;
  }
}

TEST(GradCommand, HelpExitsZero) {
  CommandRun run = runTapecheck("grad --help");
  EXPECT_EQ(run.status, 0);
  EXPECT_NE(run.out.find("--carrier"), std::string::npos);
}

}  // namespace
