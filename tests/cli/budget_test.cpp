// The work budget on the command line (cli/budget.h, docs/budget.md). The files of
// tests/cli/data/budget are small files that once made tapecheck abort inside GMP or keep it busy
// for minutes: a chain of squares of 3/2, a hundred products with a 62,000-bit integer, matrix
// products of such numbers, a scalar broadcast to 2^22 elements, 1024 × 1024 and 2048 × 2048
// products of a broadcast. Every command that runs a file refuses each of them at once, in one
// line that names the node, within 1 GiB of address space and 120 s of its own CPU time. The
// bounds are on the process's own memory and work, never on the wall clock: a busy neighbour on
// a shared machine slows a command's wall time, not its CPU time (a 10 s watchdog on the wall
// clock once failed matmul2048, 8.7 s alone, under a parallel build).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/cli/run_tapecheck.h"

namespace tc {
namespace {

using testing::CommandRun;
using testing::runCommand;
using testing::source;

const char* const kBudgetFiles[] = {"squares60", "mul100", "matmul8x8-chain", "matmul1024x2", "matmul2048", "broadcast22"};

// Runs tapecheck with its address space capped at 1 GiB and its CPU time at 120 s (SIGXCPU ends it
// past that, a status the tests below never accept).
CommandRun runBounded(const std::string& arguments) {
  std::string commandLine = "ulimit -v 1048576; ulimit -t 120; ";  // appended: see runTapecheck
  commandLine.append(TAPECHECK_BINARY).append(" ").append(arguments);
  return runCommand(commandLine);
}

std::size_t lines(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

class BudgetFile : public ::testing::TestWithParam<const char*> {
 protected:
  std::string path() const { return source(std::string("tests/cli/data/budget/") + GetParam() + ".json"); }
};

TEST_P(BudgetFile, EveryCommandRefusesItOnRationalNamingTheNode) {
  for (std::string command : {"grad", "show", "replay", "check --carrier rational"}) {
    CommandRun run = runBounded(command + " " + path());
    EXPECT_EQ(run.status, 2) << command << ": " << run.out << run.err;
    EXPECT_EQ(lines(run.err), 1u) << command << ": " << run.err;
    EXPECT_NE(run.err.find(": node "), std::string::npos) << command << ": " << run.err;
    const bool named = run.err.find("passes the budget of") != std::string::npos ||
                       run.err.find("more than the exact carriers' ceiling of 262144 bits") != std::string::npos;
    EXPECT_TRUE(named) << command << ": " << run.err;
  }
}

TEST_P(BudgetFile, OnDoubleEveryCommandEndsWithinTheBoundsAndRefusesOnlyWithAReason) {
  for (std::string command : {"grad --carrier double", "show --carrier double", "check --carrier double --cases 3"}) {
    CommandRun run = runBounded(command + " " + path());
    EXPECT_TRUE(run.status == 0 || run.status == 2) << command << ": status " << run.status << "\n" << run.out << run.err;
    if (run.status == 2) {
      EXPECT_NE(run.err.find("passes the budget of"), std::string::npos) << command << ": " << run.err;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(TinyFilesHugeWork, BudgetFile, ::testing::ValuesIn(kBudgetFiles),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(BudgetOptions, MaxWorkAndMaxMemoryMoveTheLimit) {
  const std::string mlp = source("examples/graphs/mlp.json");
  CommandRun fits = runBounded("grad " + mlp);
  EXPECT_EQ(fits.status, 0) << fits.err;
  CommandRun work = runBounded("grad " + mlp + " --max-work 100");
  EXPECT_EQ(work.status, 2);
  EXPECT_NE(work.err.find("the estimated work passes the budget"), std::string::npos) << work.err;
  EXPECT_NE(work.err.find("passes the budget of 1e+02 operations here and reaches "), std::string::npos) << work.err;
  EXPECT_NE(work.err.find(" in all; raise it with --max-work"), std::string::npos) << work.err;
  CommandRun memory = runBounded("show " + mlp + " --max-memory 0.001");
  EXPECT_EQ(memory.status, 2);
  EXPECT_NE(memory.err.find("raise it with --max-memory (MiB)"), std::string::npos) << memory.err;
  // Raising the limit lets a refused file through.
  const std::string wide = source("tests/cli/data/budget/matmul1024x2.json");
  EXPECT_EQ(runBounded("grad " + wide + " --carrier double").status, 0);
  CommandRun refused = runBounded("grad " + wide + " --carrier double --max-work 1e9");
  EXPECT_EQ(refused.status, 2) << refused.out;
  EXPECT_NE(refused.err.find("node 2 (matmul)"), std::string::npos) << refused.err;
}

TEST(BudgetOptions, CheckSuggestsFewerCasesAndChecksTheCarriersThatFit) {
  CommandRun run = runBounded("check " + source("tests/cli/data/budget/squares60.json") + " --cases 2 --seed 1");
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("not checked on rational: "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("node 17 (square): its values may need about 524288 bits"), std::string::npos) << run.out;
  // The interval carrier's endpoints reach 2^±(2^15 · 1) at node 15, past their exponent range.
  EXPECT_NE(run.out.find("not checked on interval: "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("node 15 (square): its values may reach about 2^±32768"), std::string::npos) << run.out;
  // Without --cases, a carrier that 100 draws do not fit runs on as many as fit, and says so; the
  // same draws as the first of a full run (each draw's seed is its index's). The counts follow the
  // estimate (docs/budget.md): about 1.2e5 a draw of this file on double, the file's own values
  // 3e5 (the accuracy oracle's first run judges each element at 4 µs).
  const std::string mlp = "check " + source("examples/graphs/mlp.json") + " --carrier double --seed 1";
  CommandRun fitted = runBounded(mlp + " --max-work 2e6");
  EXPECT_EQ(fitted.status, 0) << fitted.out << fitted.err;
  EXPECT_NE(fitted.out.find("on double: 14 of 100 random draws, as many as the budget allows"), std::string::npos)
      << fitted.out;
  EXPECT_NE(fitted.out.find("determinism                                double             15       15"),
            std::string::npos)
      << fitted.out;
  // An explicit --cases is a demand: refused, with the suggestion.
  CommandRun many = runBounded(mlp + " --max-work 2e6 --cases 100");
  EXPECT_EQ(many.status, 2) << many.out;
  EXPECT_NE(many.err.find("raise it with --max-work, or ask for fewer than 100 --cases"), std::string::npos) << many.err;
  // The budget is the command's: on every carrier, each gets a share of what those before it left,
  // so double runs on fewer draws, and a refusal names the share.
  const std::string all = "check " + source("examples/graphs/mlp.json") + " --seed 1 --max-work 2e6";
  CommandRun shared = runBounded(all);
  EXPECT_EQ(shared.status, 0) << shared.out << shared.err;
  EXPECT_NE(shared.out.find("on double: 1 of 100 random draws, as many as its share of the budget (1/4 of what is left)"),
            std::string::npos)
      << shared.out;
  EXPECT_NE(shared.out.find("not checked on rational: " + source("examples/graphs/mlp.json") +
                            ": node 4 (linear): the estimated work passes the budget of 3.3e+05 operations here"),
            std::string::npos)
      << shared.out;
  EXPECT_NE(shared.out.find("(this carrier's share: 1/6 of what is left of --max-work); raise it with --max-work"),
            std::string::npos)
      << shared.out;
  // One draw too many: the file's own values alone are what is left to ask for.
  CommandRun one = runBounded(mlp + " --max-work 3.5e5 --cases 1");
  EXPECT_EQ(one.status, 2) << one.out;
  EXPECT_NE(one.err.find("raise it with --max-work, or ask for --cases 0 (the file's own values alone)"), std::string::npos)
      << one.err;
  // When not even the file's own values fit, the carrier is refused as before.
  CommandRun tooLarge = runBounded(mlp + " --max-work 1e5");
  EXPECT_EQ(tooLarge.status, 2) << tooLarge.out;
  CommandRun none = runBounded("check " + source("examples/graphs/mlp.json") + " --carrier double --cases 0 --max-work 1e3");
  EXPECT_EQ(none.status, 2) << none.out;
  EXPECT_EQ(none.err.find("fewer than"), std::string::npos) << none.err;  // no fewer than 0 cases to ask for
}

// With stdout and stderr in one pipe, the refusal comes after the header the command printed first.
TEST(BudgetOptions, ARefusalFollowsTheHeaderInOnePipe) {
  std::string commandLine = "(";  // appended: see runTapecheck
  commandLine.append(TAPECHECK_BINARY)
      .append(" check ")
      .append(source("examples/graphs/mlp.json"))
      .append(" --carrier double --cases 0 --max-work 1e3 2>&1)");
  CommandRun run = runCommand(commandLine);
  EXPECT_EQ(run.status, 2) << run.out;
  const std::size_t header = run.out.find("tapecheck check ");
  const std::size_t refusal = run.out.find("tapecheck: check: not checked on any chosen carrier");
  ASSERT_NE(header, std::string::npos) << run.out;
  ASSERT_NE(refusal, std::string::npos) << run.out;
  EXPECT_LT(header, refusal) << run.out;
}

// `show` without a saved failure evaluates and lists (linear): a 3,000-node chain fits the
// default budget, which refuses `check` on it (the reference's dense order is quadratic).
TEST(BudgetOptions, ShowListsALongChainThatCheckRefuses) {
  std::string nodes;
  for (int k = 0; k < 3000; ++k) nodes += (k ? ", " : "") + std::string(R"({"op": "neg", "args": [)") + std::to_string(k) + "]}";
  const std::string path = (std::filesystem::temp_directory_path() / "tapecheck-budget-chain3000.json").string();
  std::ofstream(path) << R"({"tapecheck": 1, "inputs": [{"shape": [16]}], "values": [[)"
                      << R"("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16"]],)"
                      << R"( "nodes": [)" << nodes << "]}";
  CommandRun show = runBounded("show " + path);
  EXPECT_EQ(show.status, 0) << show.err;
  EXPECT_NE(show.out.find("3000  neg(2999)  [16]"), std::string::npos);
  CommandRun check = runBounded("check " + path + " --carrier rational --cases 2");
  EXPECT_EQ(check.status, 2) << check.out << check.err;
  EXPECT_NE(check.err.find("passes the budget of"), std::string::npos) << check.err;
}

// exact_reference runs the reference on exact rationals in the dense order: on a 1,000-node chain
// about 0.8e9 operations a run, which a budget that the other properties fit refuses.
TEST(BudgetOptions, TheDenseOrderOfTheExactReferenceAndOfAReferenceEngineCounts) {
  std::string nodes;
  for (int k = 0; k < 1000; ++k) nodes += (k ? ", " : "") + std::string(R"({"op": "neg", "args": [)") + std::to_string(k) + "]}";
  const std::string path = (std::filesystem::temp_directory_path() / "tapecheck-budget-chain1000.json").string();
  std::ofstream(path) << R"({"tapecheck": 1, "inputs": [{"shape": [16]}], "nodes": [)" << nodes << "]}";
  const std::string check = "check " + path + " --carrier double --cases 2 --seed 1 --max-work 1e9";
  CommandRun general = runBounded(check);
  EXPECT_EQ(general.status, 0) << general.out << general.err;
  CommandRun exact = runBounded(check + " --domain exact");
  EXPECT_EQ(exact.status, 2) << exact.out << exact.err;
  EXPECT_NE(exact.err.find("the estimated work passes the budget of 1e+09 operations"), std::string::npos) << exact.err;
  // In the exact domain every engine-scoped property runs the exactness checker on each draw first,
  // about as costly (0.3 s a draw here, in the dense order too).
  const std::string judged = "check " + path + " --carrier double --cases 2 --seed 1 --property compileChecked_context";
  CommandRun anyDraw = runBounded(judged + " --max-work 3e7");
  EXPECT_EQ(anyDraw.status, 0) << anyDraw.out << anyDraw.err;
  CommandRun exactDraws = runBounded(judged + " --max-work 3e7 --domain exact");
  EXPECT_EQ(exactDraws.status, 2) << exactDraws.out << exactDraws.err;
  EXPECT_NE(exactDraws.err.find("the estimated work passes the budget of 3e+07 operations"), std::string::npos)
      << exactDraws.err;
  // The reference engine under test runs its reverse passes in the dense order too: determinism's
  // 37 of them a draw there (three dense passes and 34 single-output ones).
  const std::string onChain = "check " + path + " --carrier double --cases 2 --seed 1 --max-work 8e8";
  CommandRun compiled = runBounded(onChain);
  EXPECT_EQ(compiled.status, 0) << compiled.out << compiled.err;
  CommandRun reference = runBounded(onChain + " --engine reference");
  EXPECT_EQ(reference.status, 2) << reference.out << reference.err;
  EXPECT_NE(reference.err.find("the estimated work passes the budget of 8e+08 operations"), std::string::npos)
      << reference.err;
}

// A 160 × 160 by 160 × 160 product of `value` everywhere, written to a temporary file.
std::string productFile(const std::string& name, const std::string& value) {
  std::string values;
  for (int i = 0; i < 160 * 160; ++i) values += (i ? ", \"" : "\"") + value + "\"";
  const std::string path = (std::filesystem::temp_directory_path() / ("tapecheck-budget-" + name + ".json")).string();
  std::ofstream(path) << R"({"tapecheck": 1, "inputs": [{"shape": [160, 160]}, {"shape": [160, 160]}],)"
                      << R"( "nodes": [{"op": "matmul", "args": [0, 1]}], "values": [[)" << values << "], [" << values
                      << "]]}";
  return path;
}

TEST(BudgetOptions, TheAccuracyOraclesExactSumsCountUnlessItsProductsRunInDouble) {
  // 0.1 has a long significand: the oracle adds all 3 · 160³ products to exact sums (about 5 ns
  // each, 6e7 besides the 3.1e8 of judging 3 · 160² elements); 3 is a small integer, whose folds run
  // in double, in the kernels' tiles (about 0.07 ns a multiply-add at this size).
  const std::string options = " --carrier double --property accuracy --cases 0 --max-work 3.5e8";
  CommandRun wide = runBounded("check " + productFile("wide", "0.1") + options);
  EXPECT_EQ(wide.status, 2) << wide.out << wide.err;
  EXPECT_NE(wide.err.find("node 2 (matmul): the estimated work passes the budget"), std::string::npos) << wide.err;
  CommandRun small = runBounded("check " + productFile("small", "3") + options);
  EXPECT_EQ(small.status, 0) << small.out << small.err;
  EXPECT_NE(small.out.find("accuracy "), std::string::npos) << small.out;
}

// A vector of 40,000 values, negated, written to a temporary file: `value(i)` is the i-th value's text.
template <class Value>
std::string vectorFile(const std::string& name, Value value) {
  std::string values;
  for (int i = 0; i < 40000; ++i) values += (i ? ", \"" : "\"") + value(i) + "\"";
  const std::string path = (std::filesystem::temp_directory_path() / ("tapecheck-budget-" + name + ".json")).string();
  std::ofstream(path) << R"({"tapecheck": 1, "inputs": [{"shape": [40000]}], "nodes": [{"op": "neg", "args": [0]}],)"
                      << R"( "values": [[)" << values << "]]}";
  return path;
}

TEST(BudgetOptions, TheLiteralReaderCountsEachDistinctValueOfTheFile) {
  // 40,000 distinct doubles of 17 significant digits: each written in about ten forms (exact decimals
  // of some 60 digits) and read back three ways, about 15 µs a value (6e8 in all); 40,000 copies of 3
  // are one value, read once.
  const std::string options = " --carrier double --property literal_reader --cases 0 --max-work 3e8";
  auto precise = [](int i) { return fmt::format("{:.17g}", 0.1 + i * 1e-7 / 3); };
  CommandRun distinct = runBounded("check " + vectorFile("distinct", precise) + options);
  EXPECT_EQ(distinct.status, 2) << distinct.out << distinct.err;
  EXPECT_NE(distinct.err.find("node 1 (neg): the estimated work passes the budget of 3e+08 operations"),
            std::string::npos)
      << distinct.err;
  CommandRun repeated = runBounded("check " + vectorFile("repeated", [](int) { return std::string("3"); }) + options);
  EXPECT_EQ(repeated.status, 0) << repeated.out << repeated.err;
  EXPECT_NE(repeated.out.find("literal_reader "), std::string::npos) << repeated.out;
  // And what it counts is what the oracle takes: the distinct file, allowed, ends within its estimate.
  CommandRun allowed = runBounded("check " + vectorFile("distinct", precise) +
                                  " --carrier double --property literal_reader --cases 0 --max-work 1e9");
  EXPECT_EQ(allowed.status, 0) << allowed.out << allowed.err;
}

TEST(BudgetOptions, TheLiteralReaderCountsTheFilesSeedsAndConstantsToo) {
  // The same 40,000 distinct doubles, as a const node's values or as the seed of the output; the
  // input is 40,000 copies of 3.
  std::string distinct, threes;
  for (int i = 0; i < 40000; ++i) {
    distinct += fmt::format("{}\"{:.17g}\"", i ? ", " : "", 0.1 + i * 1e-7 / 3);
    threes += i ? ", \"3\"" : "\"3\"";
  }
  auto write = [&](const std::string& name, const std::string& body) {
    const std::string path = (std::filesystem::temp_directory_path() / ("tapecheck-budget-" + name + ".json")).string();
    std::ofstream(path) << R"({"tapecheck": 1, "inputs": [{"shape": [40000]}], "values": [[)" << threes << "]], " << body
                        << "}";
    return path;
  };
  const std::string constant =
      write("constant", R"("nodes": [{"op": "const", "attrs": {"shape": [40000], "values": [)" + distinct +
                            R"(]}}, {"op": "add", "args": [0, 1]}])");
  const std::string seeded = write("seeded", R"("nodes": [{"op": "neg", "args": [0]}], "seed": [)" + distinct + "]");
  const std::string options = " --carrier double --property literal_reader --cases 0 --max-work 3e8";
  for (const std::string& path : {constant, seeded}) {
    CommandRun run = runBounded("check " + path + options);
    EXPECT_EQ(run.status, 2) << path << ": " << run.out << run.err;
    EXPECT_NE(run.err.find("the estimated work passes the budget of 3e+08 operations"), std::string::npos)
        << path << ": " << run.err;
  }
}

// A [2] input negated beside a data tensor of `values` values "1" that no node reads, written to a
// temporary file.
std::string unreadDataFile(const std::string& name, int values) {
  std::string data;
  for (int i = 0; i < values; ++i) data += i ? R"(, "1")" : R"("1")";
  const std::string path = (std::filesystem::temp_directory_path() / ("tapecheck-budget-" + name + ".json")).string();
  std::ofstream(path) << R"({"tapecheck": 1, "inputs": [{"shape": [2]}], "values": [["1", "2"]], )"
                      << R"("data": {"m": {"shape": [)" << values << R"(], "values": [)" << data
                      << R"(]}}, "nodes": [{"op": "neg", "args": [0]}]})";
  return path;
}

TEST(BudgetOptions, EveryPositionAndTheDataCountBesidesTheElementsOfNodes) {
  // 8,000 scalar inputs and one addition: each property run handles every position as a tensor of its
  // own (index_bounds and file_round_trip write and read each one's entry), about 7 µs a position and draw
  // on double, where the elements alone once counted 0.7.
  std::string inputs, values;
  for (int i = 0; i < 8000; ++i) {
    inputs += i ? R"(, {"shape": []})" : R"({"shape": []})";
    values += i ? R"(, ["1"])" : R"(["1"])";
  }
  const std::string scalars = (std::filesystem::temp_directory_path() / "tapecheck-budget-scalars.json").string();
  std::ofstream(scalars) << R"({"tapecheck": 1, "inputs": [)" << inputs << R"(], "values": [)" << values
                         << R"(], "nodes": [{"op": "add", "args": [0, 1]}]})";
  // A [2] input negated beside 65,536 data values that no node reads: copied by every run, written and
  // read back four times a draw.
  const std::string unread = unreadDataFile("unread-data", 65536);
  for (const auto& [path, node] : {std::pair{scalars, "node 8000 (add)"}, {unread, "node 1 (neg)"}}) {
    CommandRun run = runBounded("check " + path + " --carrier double --cases 3 --max-work 1e8");
    EXPECT_EQ(run.status, 2) << path << ": " << run.out << run.err;
    EXPECT_NE(run.err.find(std::string(node) + ": the estimated work passes the budget of 1e+08 operations"),
              std::string::npos)
        << run.err;
  }
}

TEST(BudgetOptions, IndexBoundsWritesTheCaseThreeTimesForEachIndexListRead) {
  // 100,000 index entries, as one list or as 20 of 5,000, each read by a gather0 of a [2, 1] input:
  // index_bounds writes the whole case and reads it back three times for each list, so the 20 lists
  // cost 20 times as much (2.8 s against 0.27 measured).
  auto lists = [](int count) {
    const int entries = 100000 / count;
    std::string data, nodes;
    for (int l = 0; l < count; ++l) {
      std::string list;
      for (int i = 0; i < entries; ++i) list += i ? ", 1" : "1";
      data += fmt::format(R"({}"r{}": {{"indices": [{}]}})", l ? ", " : "", l, list);
      nodes += fmt::format(R"({}{{"op": "gather0", "args": [0], "attrs": {{"key": "r{}"}}}})", l ? ", " : "", l);
    }
    const std::string path =
        (std::filesystem::temp_directory_path() / fmt::format("tapecheck-budget-lists-{}.json", count)).string();
    std::ofstream(path) << R"({"tapecheck": 1, "inputs": [{"shape": [2, 1]}], "values": [["1", "2"]], "data": {)"
                        << data << R"(}, "nodes": [)" << nodes << "]}";
    return path;
  };
  const std::string options = " --carrier double --property index_bounds --cases 2 --max-work 1e9";
  CommandRun one = runBounded("check " + lists(1) + options);
  EXPECT_EQ(one.status, 0) << one.out << one.err;
  CommandRun twenty = runBounded("check " + lists(20) + options);
  EXPECT_EQ(twenty.status, 2) << twenty.out << twenty.err;
  EXPECT_NE(twenty.err.find("the estimated work passes the budget of 1e+09 operations"), std::string::npos) << twenty.err;
}

TEST(BudgetOptions, EveryCommandStopsReadingAFileWhoseJsonPassesTheMemoryBudget) {
  // 100,000 data values "1" (0.5 MB of text): about 8 MiB as a JSON document, read before any
  // estimate of the case can run.
  const std::string path = unreadDataFile("long-text", 100000);
  for (std::string command : {"grad", "show", "replay", "check"}) {
    CommandRun run = runBounded(command + " " + path + " --max-memory 4");
    EXPECT_EQ(run.status, 2) << command << ": " << run.out << run.err;
    EXPECT_NE(run.err.find(path + ": reading its 0.477"), std::string::npos) << command << ": " << run.err;
    EXPECT_NE(run.err.find(" MiB of JSON takes more than the memory budget of 4 MiB; raise it with "
                           "--max-memory (MiB)\n"),
              std::string::npos)
        << command << ": " << run.err;
  }
  EXPECT_EQ(runBounded("grad " + path + " --max-memory 16").status, 0);
  // A file larger than the budget is refused before its text is read, in the same words.
  CommandRun larger = runBounded("check " + path + " --max-memory 0.25");
  EXPECT_EQ(larger.status, 2) << larger.out << larger.err;
  EXPECT_NE(larger.err.find(path + ": reading its 0.477 MiB of JSON takes more than the memory budget of 0.25 MiB"),
            std::string::npos)
      << larger.err;
}

TEST(BudgetOptions, AnEngineInAnotherProcessCountsTheValuesItExchanges) {
  // Every value sent to the engine or read from its answers is formatted and parsed on both sides of
  // the pipe: determinism's 10 draws fit 3e5 operations in this process, not through `tapecheck serve`.
  const std::string check = "check " + source("examples/graphs/mlp.json") +
                            " --carrier double --cases 10 --seed 1 --max-work 3e5 --property determinism";
  CommandRun inProcess = runBounded(check);
  EXPECT_EQ(inProcess.status, 0) << inProcess.out << inProcess.err;
  CommandRun piped = runBounded(check + " --engine-cmd '" + std::string(TAPECHECK_BINARY) + " serve'");
  EXPECT_EQ(piped.status, 2) << piped.out << piped.err;
  EXPECT_NE(piped.err.find("the estimated work passes the budget of 3e+05 operations"), std::string::npos) << piped.err;
}

TEST(BudgetOptions, TheAccuracyOraclesSoftmaxCostsSixtyEnclosedOperationsAnOperation) {
  // About 150 µs an element on intervals: a [16, 1024] softmax's 16,384 elements take 2.5 s, which
  // plain enclosed operations would put at 0.17 s.
  std::string values;
  for (int i = 0; i < 16 * 1024; ++i) values += (i ? ", \"" : "\"") + std::to_string(i % 7 - 3) + "\"";
  const std::string path = (std::filesystem::temp_directory_path() / "tapecheck-budget-softmax.json").string();
  std::ofstream(path) << R"({"tapecheck": 1, "inputs": [{"shape": [16, 1024]}], "values": [[)" << values
                      << R"(]], "nodes": [{"op": "softmax_last", "args": [0]}]})";
  CommandRun run = runBounded("check " + path + " --carrier double --cases 0 --property accuracy --max-work 1e9");
  EXPECT_EQ(run.status, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("node 1 (softmax_last): the estimated work passes the budget of 1e+09 operations"),
            std::string::npos)
      << run.err;
}

// `tapecheck serve` reads what anyone may write, and is bounded like the commands that read a file:
// a request line of at most 256 MiB (and at most --max-memory), refused once that much is read
// without a '\n'; each request's JSON and case within --max-memory and --max-work.

// A request file for serve: `document` (a case file's JSON) as the case of request 1 on `carrier`.
std::string requestFile(const std::string& name, const std::string& caseFile, const std::string& carrier) {
  std::ifstream in(caseFile);
  std::stringstream text;
  text << in.rdbuf();
  std::string document = text.str();
  std::replace(document.begin(), document.end(), '\n', ' ');
  const std::string path = (std::filesystem::temp_directory_path() / ("tapecheck-serve-" + name + ".jsonl")).string();
  std::ofstream(path) << R"({"id": 1, "carrier": ")" << carrier << R"(", "case": )" << document << ", \"passes\": []}\n";
  return path;
}

TEST(ServeBudget, AnEndlessLineEndsServeAtTheLineLimit) {
  CommandRun run = runBounded("serve < /dev/zero");
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_EQ(lines(run.err), 1u) << run.err;
  EXPECT_NE(run.err.find("tapecheck serve: request line 1: the line is longer than 268435456 bytes"), std::string::npos)
      << run.err;
  CommandRun lower = runBounded("serve --max-memory 2 < /dev/zero");
  EXPECT_EQ(lower.status, 2) << lower.err;
  EXPECT_NE(lower.err.find("request line 1: the line is longer than 2097152 bytes"), std::string::npos) << lower.err;
}

TEST(ServeBudget, ARequestPassingTheBudgetIsRefusedNamingTheNode) {
  CommandRun memory = runBounded("serve --max-work 1e15 < " +
                                 requestFile("broadcast22", source("tests/cli/data/budget/broadcast22.json"), "rational"));
  EXPECT_EQ(memory.status, 2) << memory.err;
  EXPECT_EQ(lines(memory.err), 1u) << memory.err;
  EXPECT_NE(memory.err.find("tapecheck serve: request line 1: case: node 1 (broadcast): the estimated memory passes "
                            "the budget of 1024 MiB here"),
            std::string::npos)
      << memory.err;
  EXPECT_NE(memory.err.find("; raise it with --max-memory (MiB)\n"), std::string::npos) << memory.err;
  const std::string mlp = requestFile("mlp", source("examples/graphs/mlp.json"), "double");
  CommandRun fits = runBounded("serve < " + mlp);
  EXPECT_EQ(fits.status, 0) << fits.err;
  EXPECT_EQ(lines(fits.out), 2u) << "the hello and the answer";
  CommandRun work = runBounded("serve --max-work 100 < " + mlp);
  EXPECT_EQ(work.status, 2) << work.err;
  EXPECT_NE(work.err.find("the estimated work passes the budget of 1e+02 operations"), std::string::npos) << work.err;
  EXPECT_NE(work.err.find("; raise it with --max-work\n"), std::string::npos) << work.err;
  // The JSON is read within the memory budget too, before the case is.
  CommandRun json = runBounded("serve --max-memory 4 < " +
                               requestFile("long-text", unreadDataFile("serve-long-text", 100000), "double"));
  EXPECT_EQ(json.status, 2) << json.err;
  EXPECT_NE(json.err.find("request line 1: reading its 0.4"), std::string::npos) << json.err;
  EXPECT_NE(json.err.find("takes more than the memory budget of 4 MiB; raise it with --max-memory (MiB)"),
            std::string::npos)
      << json.err;
}

TEST(BudgetOptions, ABudgetMustBeAPositiveNumber) {
  for (std::string option : {"--max-work -1", "--max-work 0", "--max-memory x"}) {
    CommandRun run = runBounded("grad " + source("examples/graphs/mlp.json") + " " + option);
    EXPECT_EQ(run.status, 2) << option;
    EXPECT_EQ(lines(run.err), 1u) << option << ": " << run.err;
  }
}

}  // namespace
}  // namespace tc
