#include "generators/coverage.h"

#include <fmt/format.h>

namespace tc::gen {

void CoverageTally::add(const std::vector<std::string>& tags) {
  ++cases_;
  for (const std::string& tag : tags) ++counts_[tag];
}

std::size_t CoverageTally::count(const std::string& tag) const {
  auto found = counts_.find(tag);
  return found == counts_.end() ? 0 : found->second;
}

std::vector<std::string> CoverageTally::shortfalls(const std::vector<CoverageFloor>& floors) const {
  std::vector<std::string> out;
  if (cases_ < kMinCasesForFloors) return out;
  for (const CoverageFloor& floor : floors) {
    double share = static_cast<double>(count(floor.tag)) / static_cast<double>(cases_);
    if (share < floor.minShare)
      out.push_back(fmt::format("{}: {:.1f}% of {} cases, floor {:g}%", floor.tag, 100 * share, cases_,
                                100 * floor.minShare));
  }
  return out;
}

}  // namespace tc::gen
