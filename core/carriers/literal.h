#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include "core/carriers/rational.h"
#include "core/support/result.h"

namespace tc {

//! The format's bounds on a literal's text (docs/file-format.md#keys), which keep a hostile file from
//! asking for huge numbers: digits in a mantissa, numerator or denominator; a decimal exponent's size.
inline constexpr std::size_t kMaxLiteralDigits = 20000;
inline constexpr long kMaxLiteralDecimalExponent = 10000;

//! A value as written in a file: an exact rational, or one of the IEEE specials.
struct Literal {
  enum class Kind { finite, nan, posInf, negInf, negZero };
  Kind kind = Kind::finite;
  Rational value;  //!< meaningful for `finite`; 0 for `negZero`
};

//! Reads an integer (`-3`), a fraction (`p/q`, sign on p, q > 0), an exact decimal (`-1.25`,
//! `2.5e-3`), a hex float (`0x1.8p+1`), `nan`, `inf`, `-inf` or `-0`.
Result<Literal> parseLiteral(std::string_view text);

//! The exact value rounded to the nearest double / float, ties to even (overflow gives ±inf).
double roundToDouble(const Rational& value);
float roundToFloat(const Rational& value);

//! Canonical exact text: "-3/4", "2", "0".
std::string formatRational(const Rational& value);

}  // namespace tc
