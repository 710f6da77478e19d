// `tapecheck bench product` (cli/bench.cpp): the IEEE product kernel timed beside the work
// estimate's count of it (kernels::ieeeProductNs), one JSON line per shape and carrier.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "core/ops/kernels.h"
#include "tests/cli/run_tapecheck.h"

namespace tc {
namespace {

using testing::CommandRun;
using testing::runTapecheck;

std::vector<nlohmann::json> lines(const std::string& out) {
  std::vector<nlohmann::json> rows;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

TEST(BenchProduct, TimesOneShapeOnBothIeeeCarriersBesideTheEstimate) {
  CommandRun run = runTapecheck("bench product --shape 8,16,32 --repeat 1");
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  const std::vector<nlohmann::json> rows = lines(run.out);
  ASSERT_EQ(rows.size(), 2u) << run.out;
  const std::vector<std::pair<std::string, std::size_t>> carriers{{"double", 8}, {"float", 4}};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const nlohmann::json& row = rows[i];
    EXPECT_EQ(row["workload"], "product");
    EXPECT_EQ(row["carrier"], carriers[i].first);
    EXPECT_EQ(row["m"], 8);
    EXPECT_EQ(row["depth"], 16);
    EXPECT_EQ(row["n"], 32);
    const double measured = row["ns_per_mac"], estimate = row["estimate_ns_per_mac"];
    EXPECT_GT(measured, 0);
    // What the estimate counts (its figures are tested in tests/core/ops/kernels_test.cpp), and the
    // ratio of the two.
    EXPECT_EQ(estimate, kernels::ieeeProductNs(8, 16, 32, carriers[i].second) / (8.0 * 16 * 32));
    EXPECT_DOUBLE_EQ(static_cast<double>(row["estimate_over_measured"]), estimate / measured);
  }
  CommandRun floats = runTapecheck("bench product --shape 8,16,32 --repeat 1 --carrier float");
  ASSERT_EQ(floats.status, 0) << floats.err;
  ASSERT_EQ(lines(floats.out).size(), 1u);
  EXPECT_EQ(lines(floats.out)[0]["carrier"], "float");
}

TEST(BenchProduct, RefusesAShapeItCannotTimeWithAReason) {
  for (const std::string shape :
       {"", " ", "8,16", "8,16,32,4", "8,16,32,", "0,16,32", "8,,32", "8,16,32x", "-1,2,3", "99999999999999999999999,1,1"}) {
    CommandRun run = runTapecheck("bench product --shape '" + shape + "'");
    EXPECT_EQ(run.status, 2) << shape;
    EXPECT_EQ(run.err,
              "tapecheck: bench product: --shape must be M,DEPTH,N (three positive integers), got '" + shape + "'\n");
  }
  CommandRun huge = runTapecheck("bench product --shape 100000,100000,100000");
  EXPECT_EQ(huge.status, 2);
  EXPECT_EQ(huge.err,
            "tapecheck: bench product: --shape '100000,100000,100000' holds 3e+10 values in its operands and output, "
            "more than the 1.34e+08 it allows (1 GiB of doubles)\n");
  CommandRun exact = runTapecheck("bench product --carrier rational");
  EXPECT_EQ(exact.status, 2);
  EXPECT_EQ(exact.err, "tapecheck: bench product: --carrier must be double or float\n");
}

}  // namespace
}  // namespace tc
