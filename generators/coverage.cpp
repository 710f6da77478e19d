#include "generators/coverage.h"

#include <fmt/format.h>

#include <cmath>

namespace tc::gen {

void CoverageTally::add(const std::vector<std::string>& tags) {
  ++cases_;
  for (const std::string& tag : tags) ++counts_[tag];
}

std::size_t CoverageTally::count(const std::string& tag) const {
  auto found = counts_.find(tag);
  return found == counts_.end() ? 0 : found->second;
}

namespace {

// P(X <= count) for X binomial with `cases` trials of probability `share` (0 < share < 1), summed in
// logarithms: the terms of a few thousand trials underflow a double's product.
double binomialLowerTail(std::size_t count, std::size_t cases, double share) {
  const double n = static_cast<double>(cases), logShare = std::log(share), logRest = std::log1p(-share);
  double tail = 0;
  for (std::size_t k = 0; k <= count; ++k) {
    const double kk = static_cast<double>(k);
    tail += std::exp(std::lgamma(n + 1) - std::lgamma(kk + 1) - std::lgamma(n - kk + 1) + kk * logShare +
                     (n - kk) * logRest);
  }
  return tail;
}

}  // namespace

std::size_t casesToJudge(double minShare) {
  if (minShare <= 0 || minShare >= 1) return kMinCasesForFloors;  // never missed, or missed by one case
  // (1 - minShare)^n < kFloorSignificance from this n on.
  const double n = std::floor(std::log(kFloorSignificance) / std::log1p(-minShare)) + 1;
  return std::max(kMinCasesForFloors, static_cast<std::size_t>(n));
}

bool CoverageTally::misses(const CoverageFloor& floor) const {
  if (!judges(floor)) return false;
  const std::size_t reached = count(floor.tag);
  if (static_cast<double>(reached) >= floor.minShare * static_cast<double>(cases_)) return false;
  return floor.minShare >= 1 || binomialLowerTail(reached, cases_, floor.minShare) < kFloorSignificance;
}

std::vector<std::string> CoverageTally::shortfalls(const std::vector<CoverageFloor>& floors) const {
  std::vector<std::string> out;
  for (const CoverageFloor& floor : floors) {
    double share = static_cast<double>(count(floor.tag)) / static_cast<double>(cases_);
    if (misses(floor))
      out.push_back(fmt::format("{}: {:.1f}% of {} cases, floor {:g}%", floor.tag, 100 * share, cases_,
                                100 * floor.minShare));
  }
  return out;
}

}  // namespace tc::gen
