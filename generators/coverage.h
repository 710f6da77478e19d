#pragma once
// Coverage categories of generated cases (docs/semantics.md §3), and the floors a run must reach: a
// category the generator stops reaching fails the run instead of going silently untested.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "generators/generate.h"

#include "core/io/case_file.h"

namespace tc::gen {

//! The categories one case falls in: "op matmul", "opaque twice", "rank 2", "fan-out",
//! "repeated argument", "unused node", "domain failure", "output at input", "output at
//! intermediate", "output at last node", "single seed", "seed pack", "kink relu" (and abs, clamp,
//! max, min: a node at one of its kinks), and on IEEE carriers "IEEE special value". Each tag
//! appears at most once per case.
template <class T>
std::vector<std::string> coverageTags(const Case<T>& c);

//! A category and the smallest share of a carrier's cases that must fall in it.
struct CoverageFloor {
  std::string tag;
  double minShare;
};

//! The floors on carrier T for cases generated with `options`: every op they allow, both opaque
//! programs, and the structural categories above (in the exact domain on IEEE carriers without
//! domain failures and special values, and with op floors halved: the domain rejects some draws;
//! with a restricted op set without domain failures).
template <class T>
std::vector<CoverageFloor> coverageFloors(const CaseOptions& options = {});

//! Below this many cases a share is too noisy to judge, and floors are reported as not judged.
inline constexpr std::size_t kMinCasesForFloors = 400;

//! A floor is missed only when a share that low is this unlikely for a generator that reaches the
//! floor (the binomial lower tail of the count at the floor's share): a share a little below the
//! floor is the noise of a few hundred cases, not a generator that stopped reaching a category.
inline constexpr double kFloorSignificance = 1e-3;

//! The fewest cases from which a floor of `minShare` can be judged: kMinCasesForFloors, and enough
//! that a category never reached (count 0) is below kFloorSignificance at the floor. A rarer floor
//! could never be missed with fewer, and is reported as not judged instead of passed.
std::size_t casesToJudge(double minShare);

//! How many cases fell in each category.
class CoverageTally {
 public:
  void add(const std::vector<std::string>& tags);
  std::size_t cases() const { return cases_; }
  std::size_t count(const std::string& tag) const;
  const std::map<std::string, std::size_t>& counts() const { return counts_; }
  //! Whether there are cases enough to judge `floor` (casesToJudge).
  bool judges(const CoverageFloor& floor) const { return cases_ >= casesToJudge(floor.minShare); }
  //! Whether `floor` is judged and missed: its category's share is below it, and a count that low
  //! has probability below kFloorSignificance for a generator that reaches the floor.
  bool misses(const CoverageFloor& floor) const;
  //! The floors missed, as "op matmul: 0.4% of 1000 cases, floor 1%"; empty when every floor
  //! holds or cannot be judged yet.
  std::vector<std::string> shortfalls(const std::vector<CoverageFloor>& floors) const;

 private:
  std::size_t cases_ = 0;
  std::map<std::string, std::size_t> counts_;
};

}  // namespace tc::gen
