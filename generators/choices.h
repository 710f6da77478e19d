#pragma once
// The generator's source of choices and the value pools it draws from.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "core/carriers/carrier.h"
#include "core/tensor/shape.h"
#include "generators/generate.h"

namespace tc::gen::detail {

//! SplitMix64: a small deterministic source of choices.
class Choices {
 public:
  explicit Choices(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  //! Uniform in [0, n).
  std::size_t below(std::size_t n) { return n == 0 ? 0 : next() % n; }
  bool percent(unsigned p) { return below(100) < p; }
  template <class C>
  const auto& pick(const C& items) { return items[below(items.size())]; }

 private:
  std::uint64_t state_;
};

inline const std::vector<std::string> kExactValues = {"0", "1", "-1", "2", "-2", "1/2", "-1/2", "3", "1/3", "-3/2", "0", "1"};
inline const std::vector<std::string> kIeeeValues = {"0", "1", "-1", "2", "0.5", "-0.5", "3", "-3", "1.5", "0.25", "1", "-2"};
// 2^24 and 2^53 are where float and double stop holding every integer: sums around them round
// differently in different orders.
inline const std::vector<std::string> kIeeeSpecials = {"-0",        "nan",        "inf",           "-inf",
                                                       "16777216",  "-16777216",  "1e-310",        "0x1p-149",
                                                       "0x1p53",    "-0x1p53"};
inline const std::vector<Shape> kShapes = {{}, {2}, {3}, {1}, {2, 3}, {3, 2}, {2, 2}, {1, 3}, {2, 1, 2}};

//! A value drawn for carrier T: small exact values, or on IEEE carriers mostly ordinary values
//! with 8% specials (±0, ±inf, NaN, 2^24, subnormals) — none in the exact domain, whose values
//! are all small dyadic numbers.
template <class T>
std::string randomValue(Choices& pick, Domain domain = Domain::general) {
  if constexpr (Carrier<T>::caps.exact) {
    return pick.pick(kExactValues);
  } else {
    if (domain == Domain::exact) return pick.pick(kIeeeValues);
    return pick.percent(8) ? pick.pick(kIeeeSpecials) : pick.pick(kIeeeValues);
  }
}

template <class T>
nlohmann::json randomValues(Choices& pick, std::size_t n, Domain domain = Domain::general) {
  nlohmann::json v = nlohmann::json::array();
  for (std::size_t i = 0; i < n; ++i) v.push_back(randomValue<T>(pick, domain));
  return v;
}

//! Half the time a seed at the output alone ("seed"), otherwise a seed pack ("seeds") that seeds
//! the output and up to two random positions.
template <class T>
void chooseSeeds(Choices& pick, const std::vector<Shape>& shapes, std::size_t output, nlohmann::json& doc,
                 Domain domain = Domain::general) {
  doc.erase("seed");
  doc.erase("seeds");
  if (pick.percent(50)) {
    doc["seed"] = randomValues<T>(pick, elementCount(shapes[output]), domain);
    return;
  }
  nlohmann::json seeds = nlohmann::json::object();
  seeds[std::to_string(output)] = randomValues<T>(pick, elementCount(shapes[output]), domain);
  std::size_t count = pick.below(3);
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t p = pick.below(shapes.size());
    seeds[std::to_string(p)] = randomValues<T>(pick, elementCount(shapes[p]), domain);
  }
  doc["seeds"] = seeds;
}

inline std::vector<std::size_t> dims(const Shape& s) { return std::vector<std::size_t>(s.begin(), s.end()); }

}  // namespace tc::gen::detail
