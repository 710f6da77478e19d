#pragma once
// The generator's source of choices and the value pools it draws from.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "core/carriers/carrier.h"
#include "core/tensor/tensor.h"
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
// Whether a special's text is NaN or an infinity.
inline bool isNonFiniteText(const std::string& text) { return text == "nan" || text == "inf" || text == "-inf"; }
// The specials that are finite: what a draw that leaves out NaN and the infinities picks instead.
inline const std::vector<std::string> kIeeeFiniteSpecials = [] {
  std::vector<std::string> finite;
  std::ranges::copy_if(kIeeeSpecials, std::back_inserter(finite), [](const std::string& v) { return !isNonFiniteText(v); });
  return finite;
}();
// Values that round: decimal fractions no binary format holds, large and tiny magnitudes. The
// accuracy oracle needs them (on the pools above nearly every op is exact).
inline const std::vector<std::string> kIeeeWideValues = {"0.1",   "-0.7",  "2.3",    "1e-3", "3.14159", "-2.71828",
                                                         "1e-20", "-1e-30", "1000", "-1000", "1e10",   "-0.45"};
// Nonzero multiples of 1/256 below 4 in magnitude (2,046 values), for the draws of a property that compares
// only away from kinks: on a tensor of a few dozen elements the pools above, with a zero in every six values,
// put nearly every draw at a kink (a zero, or a tie of two arguments); these rarely do, and every carrier holds
// them exactly. Below 4, as the pools are: larger values, summed over a product and passed to exp or sigmoid,
// took the interval carrier past its ceiling on exponents.
inline const std::vector<std::string> kSpreadValues = [] {
  std::vector<std::string> values;
  for (int steps = -1023; steps <= 1023; ++steps)
    if (steps != 0) values.push_back(std::to_string(steps) + "/256");
  return values;
}();
// Points the interval carrier holds exactly and no double does: a multiple of 1/256 below 4 plus
// 2^-70 (up to 72 significant bits), written (s·2^62 + 1)/2^70. A product whose operand is one of
// them must not run in the double kernel (kernels::exactDoubles): converting it would round it.
inline const std::vector<std::string> kOffDoublePoints = [] {
  std::vector<std::string> values;
  Choices pick(0x6f66662d646f7562ULL);
  for (int i = 0; i < 64; ++i) {
    const long long steps = static_cast<long long>(pick.below(2047)) - 1023;  // -1023 to 1023
    const __int128 numerator = static_cast<__int128>(steps) * (static_cast<__int128>(1) << 62) + 1;
    const __int128 magnitude = numerator < 0 ? -numerator : numerator;
    std::string digits;
    for (unsigned __int128 rest = static_cast<unsigned __int128>(magnitude); rest != 0; rest /= 10)
      digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(rest % 10)));
    values.push_back((numerator < 0 ? "-" : "") + digits + "/1180591620717411303424");  // 2^70
  }
  return values;
}();
// The share of an interval case's values drawn from kOffDoublePoints (a stream of choices of its own).
inline constexpr unsigned kOffDoublePercent = 3;
// Narrower values for the exact domain's draws: products of powers of two stay powers of two, and
// sums of ±1 stay small integers, exact through graphs deeper than the domain's pool allows.
inline const std::vector<std::string> kPowersOfTwoValues = {"0", "1", "-1", "2", "-2", "1/2", "-1/2"};
inline const std::vector<std::string> kUnitValues = {"0", "1", "-1"};
// Dyadic values of 3 to `bits` significant bits, 1/8 up to 16 in magnitude: in the exact domain, half
// the values in place of kIeeeValues' (about two bits), so that the products and sums of the
// kernels carry more of the mantissa while spec::checkExactDomain still proves every order exact
// (it rejects the rest, and the generator draws again). Up to 20 bits on doubles, 10 on floats: a
// product of two is then at most 40 (20) bits, and the sums of a fold of a few hundred add 9.
inline std::vector<std::string> dyadicValues(int bits) {
  std::vector<std::string> values;
  Choices pick(0x6479616469630000ULL + static_cast<std::uint64_t>(bits));
  for (int i = 0; i < 512; ++i) {
    const int width = 3 + static_cast<int>(pick.below(static_cast<std::size_t>(bits - 2)));  // 3 to `bits` bits
    const std::uint64_t mantissa = (std::uint64_t{1} << (width - 1)) | (pick.next() & ((std::uint64_t{1} << (width - 1)) - 1)) | 1;
    // The value is mantissa / 2^scale, of magnitude 2^(width - 1 - scale): 2^-3 to 2^3. A 3-bit mantissa
    // scaled up has a negative scale, written as a whole number (a shift by a negative count is undefined).
    const int scale = width - 1 + static_cast<int>(pick.below(7)) - 3;
    const std::string sign = pick.percent(50) ? "-" : "";
    if (scale < 0)
      values.push_back(sign + std::to_string(mantissa << -scale));
    else
      values.push_back(sign + std::to_string(mantissa) + "/" + std::to_string(std::uint64_t{1} << scale));
  }
  return values;
}
inline const std::vector<std::string> kDyadicDoubleValues = dyadicValues(20);
inline const std::vector<std::string> kDyadicFloatValues = dyadicValues(10);
inline constexpr unsigned kDyadicPercent = 50;

inline const std::vector<Shape> kShapes = {{}, {2}, {3}, {1}, {2, 3}, {3, 2}, {2, 2}, {1, 3}, {2, 1, 2}};

//! Which pool value a draw picked. Documents get its text, tensors the value read from that text
//! once, so a case drawn into a document and one drawn straight into tensors are the same case.
struct PoolDraw {
  const std::vector<std::string>* pool;
  std::size_t index;
  const std::string& text() const { return (*pool)[index]; }
};

inline constexpr std::size_t kSpecialPercent = 8, kWidePercent = 12;

//! A value drawn for carrier T: small exact values, or on IEEE carriers mostly small dyadic values
//! with 8% specials (±0, ±inf, NaN, 2^24, subnormals; only the finite ones when `finite`) and 12%
//! values that round or are large or tiny — neither in the exact domain, whose values are small
//! dyadic numbers, half of them of up to 20 significant bits (10 on floats).
template <class T>
PoolDraw drawValue(Choices& pick, Domain domain = Domain::general, bool finite = false) {
  auto from = [&](const std::vector<std::string>& pool) { return PoolDraw{&pool, pick.below(pool.size())}; };
  if constexpr (Carrier<T>::caps.exact) {
    return from(kExactValues);
  } else {
    if (domain == Domain::exact) {
      const auto& dyadic = sizeof(T) == sizeof(float) ? kDyadicFloatValues : kDyadicDoubleValues;
      return from(pick.percent(kDyadicPercent) ? dyadic : kIeeeValues);
    }
    const std::size_t draw = pick.below(100);
    return draw < kSpecialPercent                ? from(finite ? kIeeeFiniteSpecials : kIeeeSpecials)
           : draw < kSpecialPercent + kWidePercent ? from(kIeeeWideValues)
                                                   : from(kIeeeValues);
  }
}

}  // namespace tc::gen::detail

namespace tc::gen {

//! The share of `withRandomValues`'s draws on an IEEE carrier that leave out NaN and the
//! infinities: a draw of a large tensor otherwise almost always holds one somewhere, and the
//! arithmetic of most nodes would go untested.
inline constexpr unsigned kFiniteDrawPercent = 50;

//! The chance that one value drawn on an IEEE carrier is finite, in a draw that may hold NaN and
//! the infinities (they are among the specials of the default domain; the exact domain has none).
inline double finiteShareOfDraws(Domain domain) {
  if (domain == Domain::exact) return 1;
  const auto nonFinite = std::ranges::count_if(detail::kIeeeSpecials, detail::isNonFiniteText);
  return 1 - static_cast<double>(detail::kSpecialPercent) / 100 * static_cast<double>(nonFinite) /
                 static_cast<double>(detail::kIeeeSpecials.size());
}

}  // namespace tc::gen

namespace tc::gen::detail {

template <class T>
std::string randomValue(Choices& pick, Domain domain = Domain::general) {
  return drawValue<T>(pick, domain).text();
}

//! The value of carrier T a draw picked, read from its text once per pool.
template <class T>
const T& valueOf(const PoolDraw& draw) {
  static const auto pools = [] {
    std::vector<std::pair<const std::vector<std::string>*, std::vector<T>>> all;
    auto read = [&](const std::vector<std::string>& pool) {
      std::vector<T> values;
      for (const std::string& text : pool) values.push_back(parseValue<T>(text).value());
      all.emplace_back(&pool, std::move(values));
    };
    for (const auto* pool : {&kSpreadValues, &kPowersOfTwoValues, &kUnitValues}) read(*pool);
    if constexpr (Carrier<T>::caps.exact) {
      read(kExactValues);
    } else {
      read(kIeeeValues);
      read(kIeeeSpecials);
      read(kIeeeFiniteSpecials);
      read(kIeeeWideValues);
      read(sizeof(T) == sizeof(float) ? kDyadicFloatValues : kDyadicDoubleValues);
    }
    return all;
  }();
  for (const auto& [pool, values] : pools)
    if (pool == draw.pool) return values[draw.index];
  assert(false && "a pool the carrier does not draw from");
  return pools.front().second.front();
}

template <class T>
nlohmann::json randomValues(Choices& pick, std::size_t n, Domain domain = Domain::general) {
  nlohmann::json v = nlohmann::json::array();
  for (std::size_t i = 0; i < n; ++i) v.push_back(randomValue<T>(pick, domain));
  return v;
}

//! A tensor of the values `draw()` picks, element by element.
template <class T, class Draw>
Tensor<T> drawnTensor(const Shape& shape, Draw&& draw) {
  std::vector<T> values;
  values.reserve(elementCount(shape));
  for (std::size_t i = 0; i < elementCount(shape); ++i) values.push_back(valueOf<T>(draw()));
  return Tensor<T>(shape, std::move(values));
}

//! The values randomValues draws, straight into a tensor.
template <class T>
Tensor<T> randomTensor(Choices& pick, const Shape& shape, Domain domain = Domain::general, bool finite = false) {
  return drawnTensor<T>(shape, [&] { return drawValue<T>(pick, domain, finite); });
}

//! A tensor of values of `pool` (one of the pools above).
template <class T>
Tensor<T> pooledTensor(Choices& pick, const Shape& shape, const std::vector<std::string>& pool) {
  return drawnTensor<T>(shape, [&] { return PoolDraw{&pool, pick.below(pool.size())}; });
}

//! Half the time a seed at the output alone, otherwise a seed pack that seeds the output and up
//! to two random positions: calls `seed(position, alone)` for each, in order (a position drawn
//! twice is seeded twice, the last draw counting), where the caller draws its values.
template <class Seed>
void chooseSeedPositions(Choices& pick, std::size_t positions, std::size_t output, Seed&& seed) {
  if (pick.percent(50)) {
    seed(output, true);
    return;
  }
  seed(output, false);
  std::size_t count = pick.below(3);
  for (std::size_t i = 0; i < count; ++i) seed(pick.below(positions), false);
}

//! The seeds chooseSeedPositions draws, as a document's "seed" (the output alone) or "seeds".
template <class T>
void chooseSeeds(Choices& pick, const std::vector<Shape>& shapes, std::size_t output, nlohmann::json& doc,
                 Domain domain = Domain::general) {
  doc.erase("seed");
  doc.erase("seeds");
  nlohmann::json seeds = nlohmann::json::object();
  chooseSeedPositions(pick, shapes.size(), output, [&](std::size_t p, bool alone) {
    nlohmann::json values = randomValues<T>(pick, elementCount(shapes[p]), domain);
    // Signed zeros in a quarter of the seeds: where a −0 seed meets the dense order's pending +0
    // writes, passes that keep their own bookkeeping of zeros differ.
    if (!Carrier<T>::caps.exact && domain != Domain::exact && pick.percent(25))
      values[pick.below(values.size())] = pick.percent(50) ? "-0" : "0";
    if (alone) doc["seed"] = std::move(values);
    else seeds[std::to_string(p)] = std::move(values);
  });
  if (!seeds.empty()) doc["seeds"] = std::move(seeds);
}

inline std::vector<std::size_t> dims(const Shape& s) { return std::vector<std::size_t>(s.begin(), s.end()); }

}  // namespace tc::gen::detail
