// `tapecheck replay`, `check` and `show`, and the machine-readable reports of `run`: run as a
// user would, with exit statuses, and never a crash on any file.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>

#include "core/carriers/dispatch.h"
#include "properties/runner/all.h"
#include "tests/cli/run_tapecheck.h"

namespace {

using tc::testing::CommandRun;
using tc::testing::runTapecheck;
using tc::testing::source;

// The default run's rows, from the property registry (each applies to the ops its carrier's cases
// draw): every property on every value, and on IEEE carriers the exact domain's own rows too
// (Judging::exactRowsToo), so the exact domain's list.
std::size_t defaultRunRows() {
  std::size_t rows = 0;
  for (const std::string& carrier : tc::kCarrierNames)
    tc::withCarrier(carrier, [&]<class T>() {
      rows += tc::props::propertiesFor<T>(tc::gen::Domain::exact).size();
      return 0;
    });
  return rows;
}

std::vector<std::string> filesIn(const std::string& folder, const std::string& extension) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(source(folder)))
    if (entry.path().extension() == extension) files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string writeTemp(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::size_t lineCount(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

TEST(Replay, EveryCorpusCaseReplaysAndPasses) {
  for (const std::string& file : filesIn("tests/corpus", ".json")) {
    CommandRun run = runTapecheck("replay " + file);
    EXPECT_EQ(run.status, 0) << file << "\n" << run.out << run.err;
    EXPECT_NE(run.out.find(" pass"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("   0  input"), std::string::npos) << "the listing is printed";
  }
}

TEST(Replay, WithoutAFailureObjectEveryPropertyRuns) {
  CommandRun run = runTapecheck("replay " + source("examples/graphs/readme.json"));
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  for (const char* name : {"ofGraph_toTape", "backwardDenseAllFrom_eq_dense", "node_adjoint_identity", "linearity"})
    EXPECT_NE(run.out.find(name), std::string::npos) << name;
}

TEST(Replay, OptionsOverrideTheFileAndBadNamesAreUsageErrors) {
  std::string file = source("tests/corpus/backwardDenseAllFrom_eq_dense-rational-forgotten-ancestor.json");
  CommandRun onDouble = runTapecheck("replay " + file + " --carrier double --property determinism --engine tape");
  EXPECT_EQ(onDouble.status, 0) << onDouble.out << onDouble.err;
  EXPECT_NE(onDouble.out.find("on double with engine tape"), std::string::npos) << onDouble.out;
  CommandRun badProperty = runTapecheck("replay " + file + " --property nosuch");
  EXPECT_EQ(badProperty.status, 2);
  EXPECT_EQ(lineCount(badProperty.err), 1u) << badProperty.err;
  EXPECT_NE(badProperty.err.find("no property named 'nosuch'; the properties are: "), std::string::npos)
      << badProperty.err;
  EXPECT_EQ(runTapecheck("replay " + file + " --carrier double --property adjoint_identity").status, 2);
  std::string badCarrier = writeTemp("bad_carrier.json", R"({"tapecheck": 1, "inputs": [{"shape": []}], "values": [["1"]],
      "failure": {"property": "determinism", "carrier": "complex"}})");
  CommandRun fromFile = runTapecheck("replay " + badCarrier);
  EXPECT_EQ(fromFile.status, 2);
  EXPECT_NE(fromFile.err.find("no carrier named 'complex' (from the file's failure object)"), std::string::npos)
      << fromFile.err;
  std::string noValues = writeTemp("no_values.json", R"({"tapecheck": 1, "inputs": [{"shape": [2]}]})");
  CommandRun withoutValues = runTapecheck("replay " + noValues);
  EXPECT_EQ(withoutValues.status, 2);
  EXPECT_NE(withoutValues.err.find("replay needs the input values"), std::string::npos) << withoutValues.err;
}

TEST(Check, EveryExampleGraphPasses) {
  for (const std::string& file : filesIn("examples/graphs", ".json")) {
    CommandRun run = runTapecheck("check " + file + " --cases 30 --seed 5");
    EXPECT_EQ(run.status, 0) << file << "\n" << run.out << run.err;
    EXPECT_NE(run.out.find("all passed"), std::string::npos) << run.out;
  }
}

TEST(Check, UsesTheFilesValuesThenRandomDrawsAndSaysWhichCarriersItSkips) {
  CommandRun run = runTapecheck("check " + source("examples/graphs/classifier.json") + " --cases 4 --seed 1");
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("not checked on rational:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("compileChecked_context                     double              5"), std::string::npos)
      << "1 case from the file and 4 random draws\n" << run.out;
}

// A property named on a graph it cannot apply to is refused as on a carrier it cannot apply to
// (exit 2, said why), rather than run and failed for comparing nothing.
TEST(Check, APropertyTheGraphsOpsCannotExerciseDoesNotApply) {
  const std::string classifier = "check " + source("examples/graphs/classifier.json") + " --cases 3 --seed 1";
  CommandRun kinks = runTapecheck(classifier + " --carrier double --property kink_conventions");  // no kink op
  EXPECT_EQ(kinks.status, 2) << kinks.out << kinks.err;
  EXPECT_NE(kinks.err.find("kink_conventions does not apply to the chosen carriers and this graph's ops"),
            std::string::npos)
      << kinks.err;
  CommandRun linearity = runTapecheck(classifier + " --carrier double --property linearity");  // exact carriers only
  EXPECT_EQ(linearity.status, 2) << linearity.out << linearity.err;
  CommandRun relu = runTapecheck("check " + source("examples/graphs/mlp.json") +
                                 " --cases 3 --seed 1 --carrier double --property kink_conventions");
  EXPECT_EQ(relu.status, 0) << relu.out << relu.err;
}

// A graph without nodes gives the properties that compare nodes nothing to compare: they are left
// out and the check says so, rather than failing rows for comparing nothing (a false alarm on a valid file).
TEST(Check, AGraphWithoutNodesLeavesOutThePropertiesThatCompareNodesAndSaysSo) {
  std::string inputsOnly = writeTemp("inputs_only.json", R"({"tapecheck": 1, "inputs": [{"shape": [2]}],
      "values": [["1", "2"]]})");
  CommandRun run = runTapecheck("check " + inputsOnly + " --cases 2 --seed 1");
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("on rational: left out, as this graph has nothing they compare: shrinker (needs a node, and at most 64 nodes of 4096 elements), "
                         "kink_conventions (needs a "
                         "relu, abs, clamp, max or min node), node_adjoint_identity (needs a node whose program is not a "
                         "non-linear opaque one), linearity (needs a node that is not an opaque program), forward_oracle "
                         "(needs a node that is not an opaque program)\n"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("on double: left out, as this graph has nothing they compare: shrinker (needs a node, and at most 64 nodes of 4096 elements), "
                         "kink_conventions (needs a "
                         "relu, abs, clamp, max or min node), accuracy (needs a node that is not an opaque program)\n"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(run.out.find("accuracy          "), std::string::npos) << run.out;  // no row
  EXPECT_NE(run.out.find("file_round_trip                            double              3        3"), std::string::npos)
      << run.out;
  CommandRun named = runTapecheck("check " + inputsOnly + " --cases 2 --seed 1 --carrier double --property accuracy");
  EXPECT_EQ(named.status, 2) << named.out << named.err;
  EXPECT_NE(named.err.find("accuracy does not apply to the chosen carriers and this graph's ops"), std::string::npos)
      << named.err;
}

// A graph whose one node runs a non-linear opaque program gives the adjoint identities nothing to
// compare (they check programs linear in the cotangent): left out and said, not failed.
TEST(Check, AGraphOfANonLinearOpaqueProgramLeavesOutTheAdjointIdentities) {
  const std::string opaque = R"({"tapecheck": 1, "inputs": [{"shape": [2]}], "values": [["1", "2"]],
      "nodes": [{"op": "opaque", "args": [0], "attrs": {"name": "%"}}]})";
  auto named = [&](const std::string& name) {
    std::string text = opaque;
    text.replace(text.find('%'), 1, name);
    return writeTemp("opaque_" + name + ".json", text);
  };
  CommandRun nonLinear = runTapecheck("check " + named("const3") + " --cases 2 --seed 1 --carrier rational");
  ASSERT_EQ(nonLinear.status, 0) << nonLinear.out << nonLinear.err;
  EXPECT_NE(nonLinear.out.find("adjoint_identity (needs no node whose program is a non-linear opaque one), "
                               "node_adjoint_identity (needs a node whose program is not a non-linear opaque one)"),
            std::string::npos)
      << nonLinear.out;
  CommandRun linear = runTapecheck("check " + named("twice") + " --cases 2 --seed 1 --carrier rational");
  ASSERT_EQ(linear.status, 0) << linear.out << linear.err;
  EXPECT_NE(linear.out.find("node_adjoint_identity                      rational            3        3"),
            std::string::npos)
      << linear.out;
}

// An L1 distance over 64 elements: the small pools put nearly every draw at abs's kink (a zero or a
// tie), where adjoint_identity compares nothing, and the row failed a correct engine. Every other
// draw is now spread; and a budget that fits no draw beyond the file's values, which sit at the
// kink, is not taken as enough for it.
TEST(Check, AdjointIdentityGetsDrawsOffTheKinks) {
  std::string l1 = R"({"tapecheck": 1, "inputs": [{"shape": [64]}, {"shape": [64]}], "values": [%, %],
      "nodes": [{"op": "sub", "args": [0, 1]}, {"op": "abs", "args": [2]}, {"op": "sum", "args": [3]}]})";
  const std::string zeros = nlohmann::json(std::vector<std::string>(64, "0")).dump();
  for (int i = 0; i < 2; ++i) l1.replace(l1.find('%'), 1, zeros);
  const std::string file = writeTemp("l1.json", l1);
  CommandRun run = runTapecheck("check " + file + " --cases 10 --seed 1 --carrier rational --property adjoint_identity");
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("adjoint_identity                           rational           11        5       6"),
            std::string::npos)
      << "the file's values and the 5 pooled draws at the kink, the 5 spread ones compared\n" << run.out;
  // The spread values are small: sigmoid of a sum over 32 products of values up to 256 passed the
  // interval carrier's exponents, and those draws were skipped too.
  const std::string logistic = writeTemp("logistic_l1.json", R"({"tapecheck": 1,
      "inputs": [{"shape": [8, 32]}, {"shape": [32]}], "nodes": [{"op": "matmul", "args": [0, 1]},
      {"op": "sigmoid", "args": [2]}, {"op": "sum", "args": [3]}, {"op": "abs", "args": [1]},
      {"op": "sum", "args": [5]}, {"op": "add", "args": [4, 6]}]})");
  CommandRun interval =
      runTapecheck("check " + logistic + " --cases 4 --seed 1 --carrier interval --property adjoint_identity");
  ASSERT_EQ(interval.status, 0) << interval.out << interval.err;
  EXPECT_NE(interval.out.find("adjoint_identity                           interval            4        2       2"),
            std::string::npos)
      << interval.out;
  // The estimate: about 0.9e7 operations for the file's values, 1.8e7 with one draw.
  CommandRun one = runTapecheck("check " + file + " --seed 1 --carrier rational --max-work 2.2e7");
  ASSERT_EQ(one.status, 0) << one.out << one.err;
  EXPECT_NE(one.out.find("on rational: 1 of 100 random draws"), std::string::npos) << one.out;
  CommandRun none = runTapecheck("check " + file + " --seed 1 --carrier rational --max-work 1.4e7");
  EXPECT_EQ(none.status, 2) << "refused, not a row failed for comparing nothing\n" << none.out << none.err;
  EXPECT_NE(none.err.find("raise it with --max-work"), std::string::npos) << none.err;
}

TEST(Check, AGraphWithoutValuesIsCheckedOnRandomDrawsOnly) {
  std::string graph = writeTemp("graph_only.json", R"({"tapecheck": 1, "inputs": [{"shape": [2, 2]}, {"shape": [2]}],
      "nodes": [{"op": "matmul", "args": [0, 1]}, {"op": "sum", "args": [2]}]})");
  CommandRun run = runTapecheck("check " + graph + " --cases 7 --seed 2 --carrier modp");
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("compileChecked_context                     modp                7"), std::string::npos) << run.out;
  CommandRun nothing = runTapecheck("check " + graph + " --cases 0");
  EXPECT_EQ(nothing.status, 2);
  EXPECT_NE(nothing.err.find("nothing to check"), std::string::npos) << nothing.err;
}

// In the exact domain the draws are dyadic and exact_reference joins; the engine is judged only on
// draws proven exact (another engine may round the others differently, and rightly), so a graph
// whose draws never are compares nothing and its rows fail rather than passing empty; a graph with
// an op the domain lacks is not checked on that carrier.
TEST(Check, TheExactDomainComparesWithTheRationalReferenceOrSaysItComparedNothing) {
  std::string graph = writeTemp("exact_graph.json", R"({"tapecheck": 1, "inputs": [{"shape": [2, 2]}, {"shape": [2]}],
      "nodes": [{"op": "matmul", "args": [0, 1]}, {"op": "sum", "args": [2]}]})");
  CommandRun run = runTapecheck("check " + graph + " --cases 10 --seed 2 --carrier double --domain exact --survey");
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("exact_reference                            double             10       10"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("(no failures)"), std::string::npos) << run.out;
  // A four-layer MLP rounds in float on nearly every draw of the domain's pool; the narrower draws
  // (a third of powers of two, a third of 0 and ±1) are exact.
  std::string deep = writeTemp("deep_mlp.json", R"({"tapecheck": 1, "inputs": [{"shape": [8, 4]}, {"shape": [4]},
      {"shape": [8]}, {"shape": [8, 8]}, {"shape": [8]}, {"shape": [8, 8]}, {"shape": [8]}, {"shape": [2, 8]},
      {"shape": [2]}, {"shape": [2]}], "nodes": [{"op": "linear", "args": [0, 1, 2]}, {"op": "relu", "args": [10]},
      {"op": "linear", "args": [3, 11, 4]}, {"op": "relu", "args": [12]}, {"op": "linear", "args": [5, 13, 6]},
      {"op": "relu", "args": [14]}, {"op": "linear", "args": [7, 15, 8]}, {"op": "mse_loss", "args": [16, 9]}]})");
  CommandRun narrower =
      runTapecheck("check " + deep + " --cases 6 --seed 1 --carrier float --domain exact --property exact_reference");
  EXPECT_EQ(narrower.status, 0) << narrower.out << narrower.err;
  EXPECT_NE(narrower.out.find("exact_reference                            float               6        4"),
            std::string::npos)
      << narrower.out;
  std::string meanOfThree = writeTemp("mean_of_three.json", R"({"tapecheck": 1, "inputs": [{"shape": [3]}],
      "values": [["1", "1/2", "1/4"]], "nodes": [{"op": "mean", "args": [0]}]})");
  CommandRun rounds = runTapecheck("check " + meanOfThree + " --cases 4 --seed 1 --carrier double --domain exact");
  EXPECT_EQ(rounds.status, 1) << rounds.out << rounds.err;
  EXPECT_NE(rounds.out.find("compileChecked_backwardDenseFrom on double: nothing compared: 5 of 5 cases (5 skipped: "
                            "not in the exact domain)"),
            std::string::npos)
      << "1.75 / 3 rounds\n" << rounds.out;
  CommandRun outside =
      runTapecheck("check " + source("examples/graphs/classifier.json") + " --cases 5 --seed 1 --carrier double --domain exact");
  EXPECT_EQ(outside.status, 2) << outside.out << outside.err;
  // The graph is never exact: the reason names the node the domain lacks.
  EXPECT_NE(outside.out.find("not checked on double: " + source("examples/graphs/classifier.json") +
                             ": node 4 (log_softmax_last): not in the exact domain: needs transcendental functions"),
            std::string::npos)
      << outside.out;
}

TEST(Show, ListsACaseAndMarksASavedFailure) {
  CommandRun run = runTapecheck("show " + source("tests/corpus/compileChecked_backwardDenseFrom-double-pending-positive-zero.json"));
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("on double: 2 inputs, 2 nodes, output position 3"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("saved failure of compileChecked_backwardDenseFrom: it holds now"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("   3  scale(0) c=1  []"), std::string::npos) << run.out;
  CommandRun elsewhere =
      runTapecheck("show " + source("tests/corpus/node_adjoint_identity-rational-matmul-transposed-term.json") + " --carrier double");
  ASSERT_EQ(elsewhere.status, 0) << elsewhere.err;
  EXPECT_NE(elsewhere.out.find("saved failure of node_adjoint_identity: not re-checked (it is not a property on this carrier)"),
            std::string::npos) << elsewhere.out;
}

// An opaque program in a listing is followed by what it does (from its registry entry); modp
// values show in the symmetric range, fractions marked as residues.
TEST(Show, AbbreviatesAPositionOfManyValuesUnlessFull) {
  std::string values;
  for (int i = 1; i <= 20; ++i) values += (i > 1 ? ", \"" : "\"") + std::to_string(i) + "\"";
  const std::string file = writeTemp("twenty.json", R"({"tapecheck": 1, "inputs": [{"shape": [20]}], "values": [[)" +
                                                        values + R"(]], "nodes": [{"op": "sum", "args": [0]}]})");
  for (const std::string command : {"show ", "replay "}) {
    CommandRun brief = runTapecheck(command + file);
    EXPECT_NE(brief.out.find("value  1 2 3 4 5 6 7 8 9 10 11 12 13 14 … 20 (20 values)\n"), std::string::npos) << brief.out;
    EXPECT_NE(brief.out.find("value  210\n"), std::string::npos) << brief.out;
    EXPECT_NE(brief.out.find("(a position of more than 16 values lists the first 14, the last and how many; --full "
                             "lists every value)"),
              std::string::npos)
        << brief.out;
    CommandRun full = runTapecheck(command + file + " --full");
    EXPECT_NE(full.out.find("value  1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\n"), std::string::npos) << full.out;
    EXPECT_EQ(full.out.find("--full"), std::string::npos) << full.out;
  }
}

TEST(Show, ListsWhatAnOpaqueProgramDoesAndModPValuesForPeople) {
  std::string file = writeTemp("opaque_listing.json", R"({"tapecheck": 1, "inputs": [{"shape": [2]}],
      "nodes": [{"op": "opaque", "args": [0], "attrs": {"name": "const3"}}], "values": [["-1", "1/3"]]})");
  CommandRun run = runTapecheck("show " + file + " --carrier modp");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("   1  opaque const3(0)  [2]\n        opaque const3: forward copies x; its program writes 3 into every "
                         "earlier position whatever the cotangent"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("value  -1 ≡1/3 (mod p)"), std::string::npos) << run.out;
  CommandRun dot = runTapecheck("show --dot " + file);
  EXPECT_NE(dot.out.find("opaque const3: forward copies x"), std::string::npos) << dot.out;
}

// A saved failure that holds now still shows where it was: the positions its record names.
TEST(Show, DotFillsTheSavedFailuresPositionsAndSaysSoInTheLegend) {
  std::string file = writeTemp("saved_positions.json", R"({"tapecheck": 1, "inputs": [{"shape": [2]}, {"shape": [2]}],
      "nodes": [{"op": "mul", "args": [0, 1]}, {"op": "sum", "args": [2]}], "values": [["1", "2"], ["3", "-1"]],
      "failure": {"property": "adjoint_identity", "carrier": "rational", "engine": "compiled", "seed": 1,
                  "why": "<seed, J·v> = -7/2 but <Jᵀ·seed, v> = -9/2", "positions": [0]}})");
  CommandRun run = runTapecheck("show --dot " + file);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("p0 [label=\"0: input [2]\\lvalue: 1 2\\lseed: 0 0\\l\", style=filled, fillcolor="), std::string::npos)
      << run.out;
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '#'), 1) << run.out;
  EXPECT_NE(run.out.find("legend [shape=note"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("red fill: blamed by the saved failure of adjoint_identity (it holds now)"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("bold outline: the output, position 3"), std::string::npos) << run.out;
  std::string bad = writeTemp("bad_positions.json", R"({"tapecheck": 1, "inputs": [{"shape": []}],
      "failure": {"property": "adjoint_identity", "positions": [-1]}})");
  CommandRun refused = runTapecheck("show --dot " + bad);
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("failure.positions: must be an array of positions"), std::string::npos) << refused.err;
}

TEST(Show, DotRendersWithGraphviz) {
  for (const std::string& file : filesIn("examples/graphs", ".json")) {
    std::string svgFile = ::testing::TempDir() + std::filesystem::path(file).stem().string() + ".svg";
    std::filesystem::remove(svgFile);
    CommandRun show = runTapecheck("show --dot " + file);
    ASSERT_EQ(show.status, 0) << file << "\n" << show.err;
    std::string dotFile = writeTemp(std::filesystem::path(file).stem().string() + ".dot", show.out);
    CommandRun dot = tc::testing::runCommand("dot -Tsvg " + dotFile + " -o " + svgFile);
    EXPECT_EQ(dot.status, 0) << file << "\n" << dot.err;
    std::ifstream svg(svgFile);
    std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("<svg"), std::string::npos) << file;
    EXPECT_NE(text.find("0: input"), std::string::npos) << file;
  }
}

TEST(Show, DotMarksTheOutputAndEveryArgumentEdge) {
  CommandRun run = runTapecheck("show --dot " + source("examples/graphs/readme.json"));
  ASSERT_EQ(run.status, 0);
  EXPECT_NE(run.out.find("p2 [label=\"2: matmul(0, 1) [2]\\lvalue: 3/2 9/2\\lseed: 0 0\\l\"];"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("p4 [label=\"4: scale(3) c=-1/2 [2]\\lvalue: -3/4 0\\lseed: 1 3\\l\", penwidth=3];"), std::string::npos)
      << run.out;
  for (const char* edge : {"p0 -> p2;", "p1 -> p2;", "p2 -> p3;", "p3 -> p4;"})
    EXPECT_NE(run.out.find(edge), std::string::npos) << edge;
}

// Every command on every malformed file and on random bytes: status 2 and exactly one line on
// stderr, never a crash.
TEST(CaseCommands, MalformedFilesAndRandomBytesAreOneLineUsageErrors) {
  std::vector<std::string> files = filesIn("tests/core/io/malformed", ".json");
  files.push_back(source("tests/core/io/malformed"));  // a directory
  files.push_back(::testing::TempDir() + "does-not-exist.json");
  std::mt19937 random(11);
  for (int i = 0; i < 6; ++i) {
    std::string bytes(1 + random() % 300, '\0');
    for (char& c : bytes) c = static_cast<char>(random());
    files.push_back(writeTemp("random" + std::to_string(i) + ".json", bytes));
  }
  files.push_back(writeTemp("deep.json", std::string(5000, '[') + std::string(5000, ']')));
  files.push_back(writeTemp("failure_not_object.json", R"({"tapecheck": 1, "inputs": [], "failure": 3})"));
  for (const std::string& file : files)
    for (const char* command : {"replay ", "check --cases 3 ", "show ", "show --dot "}) {
      CommandRun run = runTapecheck(command + ("'" + file + "'"));
      EXPECT_EQ(run.status, 2) << command << file << "\n" << run.out << run.err;
      EXPECT_EQ(lineCount(run.err), 1u) << command << file << "\n" << run.err;
      EXPECT_EQ(run.err.rfind("tapecheck: ", 0), 0u) << run.err;
    }
}

TEST(RunReports, JunitHasOneTestcasePerPropertyAndCarrierAndJsonParses) {
  std::string junit = ::testing::TempDir() + "run.xml", json = ::testing::TempDir() + "run.json";
  CommandRun run = runTapecheck("run --cases 10 --seed 3 --quiet --junit " + junit + " --json " + json);
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_EQ(lineCount(run.out), 1u) << "quiet prints only the summary line\n" << run.out;
  std::ifstream in(json);
  nlohmann::json report = nlohmann::json::parse(in);
  EXPECT_EQ(report["results"].size(), defaultRunRows());
  EXPECT_EQ(report["passed"], true);
  EXPECT_EQ(report["policy"], "bits");
  for (const auto& row : report["results"]) {
    EXPECT_EQ(row["policy"], "bits");
    EXPECT_EQ(row["compared"].get<std::size_t>() + row["skipped"].get<std::size_t>() + row["unsupported"].get<std::size_t>(),
              row["cases"].get<std::size_t>());
    EXPECT_GT(row["compared"].get<std::size_t>(), 0u) << row.dump();
  }
  EXPECT_EQ(report["seed"], 3);
  EXPECT_TRUE(report["coverage"].contains("rational"));
  CommandRun count = tc::testing::runCommand(
      "python3 -c \"import xml.etree.ElementTree as E; t = E.parse('" + junit +
      "'); c = t.findall('.//testcase'); print(len(c), len({(x.get('classname'), x.get('name')) for x in c}), "
      "len(t.findall('.//failure')))\"");
  EXPECT_EQ(count.status, 0) << count.err;
  const std::string rows = std::to_string(defaultRunRows());
  EXPECT_EQ(count.out, rows + " " + rows + " 0\n");
}

TEST(RunReports, ShardsPartitionTheRows) {
  std::set<std::pair<std::string, std::string>> rows;
  std::size_t total = 0;
  for (int shard = 0; shard < 3; ++shard) {
    std::string json = ::testing::TempDir() + "shard" + std::to_string(shard) + ".json";
    CommandRun run = runTapecheck("run --cases 5 --seed 3 --quiet --shard " + std::to_string(shard) + "/3 --json " + json);
    ASSERT_EQ(run.status, 0) << run.out << run.err;
    std::ifstream in(json);
    const nlohmann::json report = nlohmann::json::parse(in);
    for (const auto& row : report["results"]) {
      rows.emplace(row["property"], row["carrier"]);
      ++total;
    }
  }
  const std::size_t expected = defaultRunRows();
  EXPECT_EQ(total, expected) << "no row runs twice";
  EXPECT_EQ(rows.size(), expected) << "every row runs once";
  CommandRun fromEnvironment = tc::testing::runCommand("GTEST_SHARD_INDEX=1 GTEST_TOTAL_SHARDS=4 " +
                                                       std::string(TAPECHECK_BINARY) + " run --cases 5 --seed 3");
  const std::size_t second = (expected + 2) / 4;  // rows 1, 5, 9, ...
  EXPECT_NE(fromEnvironment.out.find(fmt::format("shard 1/4: {} of {} rows", second, expected)), std::string::npos)
      << fromEnvironment.out;
  EXPECT_EQ(runTapecheck("run --shard 2/2").status, 2);
  EXPECT_EQ(runTapecheck("run --shard 1").status, 2);
}

}  // namespace
