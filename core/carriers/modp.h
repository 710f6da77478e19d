#pragma once
#include <cassert>
#include <cstdint>

namespace tc {

//! An integer modulo the Mersenne prime 2^61 - 1: an exact field with storage equality and no order.
class ModP {
 public:
  static constexpr std::uint64_t kPrime = (std::uint64_t{1} << 61) - 1;

  constexpr ModP() = default;
  //! `residue` must already lie in [0, kPrime).
  static constexpr ModP fromResidue(std::uint64_t residue) {
    assert(residue < kPrime);
    ModP m;
    m.residue_ = residue;
    return m;
  }
  static constexpr ModP fromInt(std::int64_t n) {
    std::int64_t r = n % static_cast<std::int64_t>(kPrime);
    return fromResidue(static_cast<std::uint64_t>(r < 0 ? r + static_cast<std::int64_t>(kPrime) : r));
  }
  constexpr std::uint64_t residue() const { return residue_; }

  friend constexpr ModP operator+(ModP a, ModP b) {
    std::uint64_t s = a.residue_ + b.residue_;
    return fromResidue(s >= kPrime ? s - kPrime : s);
  }
  friend constexpr ModP operator-(ModP a, ModP b) {
    return fromResidue(a.residue_ >= b.residue_ ? a.residue_ - b.residue_ : a.residue_ + kPrime - b.residue_);
  }
  friend constexpr ModP operator-(ModP a) { return ModP{} - a; }
  friend constexpr ModP operator*(ModP a, ModP b) {
    unsigned __int128 p = static_cast<unsigned __int128>(a.residue_) * b.residue_;
    std::uint64_t folded = static_cast<std::uint64_t>(p & kPrime) + static_cast<std::uint64_t>(p >> 61);
    folded = (folded & kPrime) + (folded >> 61);
    return fromResidue(folded >= kPrime ? folded - kPrime : folded);
  }
  //! Division by zero is a broken invariant: validation rejects zero divisors first.
  friend constexpr ModP operator/(ModP a, ModP b) { return a * b.inverse(); }
  friend constexpr bool operator==(ModP a, ModP b) = default;

  constexpr ModP inverse() const {
    assert(residue_ != 0 && "ModP: inverse of zero");
    ModP result = fromResidue(1), base = *this;
    for (std::uint64_t e = kPrime - 2; e != 0; e >>= 1) {
      if (e & 1) result = result * base;
      base = base * base;
    }
    return result;
  }

 private:
  std::uint64_t residue_ = 0;
};

}  // namespace tc
