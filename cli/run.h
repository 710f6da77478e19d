#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace tc::cli {

//! Options of `tapecheck run`.
struct RunOptions {
  std::size_t cases = 100;
  std::optional<std::uint64_t> seed;  //!< default: from the clock, printed so a run can be repeated
  std::string carrier = "all";
  std::string property = "all";
  std::string engine = "compiled";
  std::string saveDir = "tapecheck-failures";
};

//! Runs every property on every carrier and prints the table; returns the exit status.
int runProperties(const RunOptions& options);

}  // namespace tc::cli
