#pragma once
// The exact sum of products of finite doubles in a long fixed-point accumulator (after Kulisch):
// every product of two doubles is an integer below 2^106 times a power of two between 2^-2148
// and 2^1942, so a fixed-point number whose last bit weighs 2^-2148 holds any such sum exactly.
// The interval carrier encloses a fold of products of points with it (docs/semantics.md §1.13):
// integer additions instead of 257-bit MPFI operations, and one rounding instead of one per step.
#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tc {

//! A finite double as negative · mantissa · 2^(exponent − 1074): mantissa below 2^53, exponent
//! in [0, 2045] (subnormals and the smallest normal binade share exponent 0).
struct DecodedDouble {
  std::uint64_t mantissa;
  std::uint32_t exponent;
  std::uint32_t negative;  //!< 1 when the sign bit is set (−0 included), else 0

  static DecodedDouble of(double d) {
    assert(std::isfinite(d));
    const auto bits = std::bit_cast<std::uint64_t>(d);
    const auto biased = static_cast<std::uint32_t>((bits >> 52) & 0x7ff);
    const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
    return biased == 0 ? DecodedDouble{fraction, 0, static_cast<std::uint32_t>(bits >> 63)}
                       : DecodedDouble{fraction | (std::uint64_t{1} << 52), biased - 1,
                                       static_cast<std::uint32_t>(bits >> 63)};
  }
};

//! The exact sum of products of finite doubles added so far, starting at 0: two fixed-point
//! magnitudes of 64-bit words, one for the positive products and one for the negative ones, so
//! that an addition is three word additions with carries and no sign extension.
class ExactProductSum {
 public:
  //! Weight of the last bit: the smallest product of two doubles is 2^-1074 · 2^-1074.
  static constexpr long kLowestExponent = -2148;

  ExactProductSum() { clear(); }

  //! Adds x · y exactly.
  void add(const DecodedDouble& x, const DecodedDouble& y) {
    using Wide = unsigned __int128;
    const Wide product = static_cast<Wide>(x.mantissa) * y.mantissa;  // below 2^106
    const std::uint32_t position = x.exponent + y.exponent;           // bits above 2^-2148
    const std::uint32_t word = position >> 6, shift = position & 63;
    const Wide low = product << shift;  // the product's bits (170 at most) as two words and a third
    const std::uint64_t high = shift == 0 ? 0 : static_cast<std::uint64_t>(product >> (128 - shift));
    std::uint64_t* w = words_[x.negative ^ y.negative].data() + word;
    const Wide sum = (static_cast<Wide>(w[1]) << 64 | w[0]) + low;
    const std::uint64_t carry = sum < low ? 1 : 0;
    w[0] = static_cast<std::uint64_t>(sum), w[1] = static_cast<std::uint64_t>(sum >> 64);
    const std::uint64_t third = w[2] + high + carry;  // high is below 2^42: no wrap but past the top
    const bool wrapped = third < w[2];
    w[2] = third;
    if (wrapped) [[unlikely]]
      for (std::uint64_t* next = w + 3; ++*next == 0; ++next) {
      }
    lowest_ = std::min(lowest_, word);
  }

  //! The sum as (−1)^negative · Σ digits[i] · 2^(64·i + exponent): 64-bit digits, least
  //! significant first, no zero digit at either end (none when the sum is 0).
  struct Value {
    bool negative = false;
    std::vector<std::uint64_t> digits;
    long exponent = 0;
  };

  //! The exact sum, written into `out` (its storage is reused). Resets the sum to 0.
  void takeValue(Value& out);

 private:
  void clear();

  // A product's bits lie below bit 4090 + 106 = 4196 (counted from the last bit): 66 words hold
  // them, one word more the carries of any number of additions this program can make.
  static constexpr std::size_t kWords = 67;
  std::array<std::array<std::uint64_t, kWords>, 2> words_;  // positive products, negative products
  std::uint32_t lowest_ = kWords;                           // no word below it holds a bit
};

}  // namespace tc
