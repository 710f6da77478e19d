#include "core/carriers/carrier.h"

#include "core/support/mutants.h"

#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <numeric>
#include <utility>

namespace tc {
namespace {

Result<Rational> exactValue(const Literal& literal, std::string_view carrier) {
  switch (literal.kind) {
    case Literal::Kind::finite: return literal.value;
    case Literal::Kind::negZero: return Rational(0);
    default: return fail(fmt::format("has no exact value on the {} carrier", carrier));
  }
}

// A residue is shown as a fraction only when both parts are this small: a random residue is one
// by chance with probability about 2^-20.
constexpr std::int64_t kSmallFraction = std::int64_t{1} << 20;

// The fraction a/b ≡ residue (mod p) with |a| and b at most 2^30, by the half-extended Euclidean
// algorithm (invariant r ≡ t·residue); it is unique when it exists, since 2·2^30·2^30 < p.
std::optional<std::pair<std::int64_t, std::int64_t>> smallestFraction(std::uint64_t residue) {
  constexpr std::int64_t kBound = std::int64_t{1} << 30;
  std::int64_t r0 = static_cast<std::int64_t>(ModP::kPrime), r1 = static_cast<std::int64_t>(residue), t0 = 0, t1 = 1;
  while (r1 > kBound) {
    const std::int64_t q = r0 / r1;
    r0 = std::exchange(r1, r0 - q * r1);
    t0 = std::exchange(t1, t0 - q * t1);
  }
  if (t1 < 0) r1 = -r1, t1 = -t1;
  if (t1 > kBound || std::gcd(r1, t1) != 1) return std::nullopt;
  return std::pair{r1, t1};
}

}  // namespace

std::string_view requirementName(Requirement r) {
  switch (r) {
    case Requirement::ring: return "a ring";
    case Requirement::field: return "a field";
    case Requirement::ordered: return "an ordered carrier";
    case Requirement::orderedField: return "an ordered field";
    case Requirement::transcendental: return "transcendental functions";
  }
  return "?";
}

Result<Rational> Carrier<Rational>::fromLiteral(const Literal& literal) { return exactValue(literal, name); }

Result<RationalNoEq> Carrier<RationalNoEq>::fromLiteral(const Literal& literal) {
  auto value = exactValue(literal, name);
  if (!value) return std::unexpected(value.error());
  return RationalNoEq(*value);
}

Result<ModP> Carrier<ModP>::fromLiteral(const Literal& literal) {
  auto value = exactValue(literal, name);
  if (!value) return std::unexpected(value.error());
  const Integer prime(ModP::kPrime);
  auto reduce = [&](const Integer& n) {
    Integer r = n % prime;
    if (r < 0) r += prime;
    return ModP::fromResidue(r.convert_to<std::uint64_t>());
  };
  ModP denominator = reduce(boost::multiprecision::denominator(*value));
  if (denominator == ModP()) return fail("denominator is divisible by 2^61-1");
  return reduce(boost::multiprecision::numerator(*value)) / denominator;
}

Result<Interval> Carrier<Interval>::fromLiteral(const Literal& literal) {
  auto value = exactValue(literal, name);
  if (!value) return std::unexpected(value.error());
  return encloseInRange(*value, *value, formatRational(*value));
}

std::string Carrier<ModP>::display(const ModP& x) {
  auto fraction = smallestFraction(x.residue());
  if (fraction && fraction->second > 1 && std::abs(fraction->first) <= kSmallFraction &&
      fraction->second <= kSmallFraction)
    return fmt::format("≡{}/{} (mod p)", fraction->first, fraction->second);
  constexpr std::uint64_t half = (ModP::kPrime - 1) / 2;
  if (x.residue() <= half) return std::to_string(x.residue());
  return "-" + std::to_string(ModP::kPrime - x.residue());
}

template <class F>
Result<F> IeeeCarrier<F>::fromLiteral(const Literal& literal) {
  switch (literal.kind) {
    case Literal::Kind::finite:
      if constexpr (sizeof(F) == 8) return roundToDouble(literal.value);
      else return roundToFloat(literal.value);
    case Literal::Kind::nan: return std::numeric_limits<F>::quiet_NaN();
    case Literal::Kind::posInf: return std::numeric_limits<F>::infinity();
    case Literal::Kind::negInf: return -std::numeric_limits<F>::infinity();
    case Literal::Kind::negZero: return F(-0.0);
  }
  return F(0);
}

template <class F>
std::string IeeeCarrier<F>::format(F x) {
  std::string out;
  appendFormat(x, out);
  return out;
}

template <class F>
void IeeeCarrier<F>::appendFormat(F x, std::string& out) {
  if (TC_MUTANT(writer_unsigned_zero) && x == 0) {
    out += "0";
  } else if (std::isnan(x)) {
    out += "nan";
  } else if (std::isinf(x)) {
    out += x > 0 ? "inf" : "-inf";
  } else {
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, x);  // shortest round trip
    out.append(buffer, end);
  }
}

template struct IeeeCarrier<double>;
template struct IeeeCarrier<float>;

}  // namespace tc
