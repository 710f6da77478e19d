#include "cli/run_output.h"

#include <fmt/format.h>

#include <chrono>

namespace tc::cli {

std::uint64_t clockSeed() {
  return static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007ULL;
}

std::string formatTable(const std::vector<RunRow>& rows) {
  std::string out = fmt::format("\n{:<42} {:<14} {:>6} {:>8} {:>7} {:>10}\n", "property", "carrier", "cases", "skipped",
                                "result", "time ms");
  for (const RunRow& r : rows)
    out += fmt::format("{:<42} {:<14} {:>6} {:>8} {:>7} {:>10.1f}\n", r.property, r.carrier, r.run.cases, r.run.skipped,
                       r.run.failure ? "FAIL" : "pass", r.run.ms);
  return out;
}

}  // namespace tc::cli
