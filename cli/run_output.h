#pragma once
// Printing and saving what property runs found (the results table, and each failure with its
// saved case file), and the seed of a run without --seed; shared by `tapecheck run` and
// `tapecheck check`. What a run found is cli/run_report.h.
#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/run_report.h"
#include "core/carriers/carrier.h"
#include "core/io/document_format.h"
#include "properties/report.h"

namespace tc::cli {

//! A run seed from the clock, for runs without --seed (it is always printed).
std::uint64_t clockSeed();

//! The table of rows: property, carrier, cases, skipped, result, time.
std::string formatTable(const std::vector<RunRow>& rows);

// Prints the shrunk counterexample, saves it as "<dir>/<property>-<carrier>-<seed>.json" with its
// failure object, and prints how to replay it and how to repeat the run (`rerun`).
template <class T>
void reportFailure(RunRow& row, std::string_view engine, std::uint64_t seed, const std::string& saveDir,
                   const std::string& rerun) {
  const props::Counterexample& failure = *row.run.failure;
  const std::string_view carrier = Carrier<T>::name;
  row.listing = props::formatCaseListing<T>(failure.shrunk, failure.verdict);
  fmt::print("\n{} failed on {} with engine {} (shrunk in {} steps from {} to {} nodes):\n  {}\n{}", row.property, carrier,
             engine, failure.shrinkSteps, failure.original.value("nodes", nlohmann::json::array()).size(),
             failure.shrunk.value("nodes", nlohmann::json::array()).size(), failure.verdict.why, row.listing);
  nlohmann::json saved = failure.shrunk;
  saved["failure"] = {{"property", row.property}, {"carrier", carrier}, {"engine", engine}, {"seed", seed},
                      {"why", failure.verdict.why}};
  std::error_code ignored;
  std::filesystem::create_directories(saveDir, ignored);
  std::string file = fmt::format("{}/{}-{}-{}.json", saveDir, row.property, carrier, seed);
  if (std::ofstream out(file); out << formatCaseDocument(saved)) {
    row.savedFile = file;
    fmt::print("saved: {}\nreplay: tapecheck replay {}\n", file, file);
  } else {
    fmt::print("could not save the counterexample to {}\n", file);
  }
  fmt::print("rerun:  {}\n", rerun);
}

}  // namespace tc::cli
