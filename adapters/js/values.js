// Values of tapecheck's file format (docs/file-format.md#values), decoded exactly per carrier and
// encoded without loss. Standard library only: exact values are BigInt fractions, IEEE values are
// JavaScript numbers (a `float` is a number holding a float32 value).

/** The modulus of the `modp` carrier, 2^61 - 1. */
export const MODP = (1n << 61n) - 1n;

/** A malformed request value: the line breaks the protocol (the serve loop exits on it). */
export class ValueError extends Error {
  constructor(message) {
    super(message);
    this.name = "ValueError";
  }
}

function gcd(a, b) {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/**
 * An exact rational number: BigInt numerator and denominator, in lowest terms, the sign on the
 * numerator, the denominator positive. Immutable. `toString()` is the file format's canonical
 * form ("-3/4", "2", "0"), as Python's `str(Fraction)`.
 */
export class Fraction {
  /**
   * @param {bigint|number} num an integer
   * @param {bigint|number} [den=1n] a nonzero integer
   */
  constructor(num, den = 1n) {
    num = BigInt(num);
    den = BigInt(den);
    if (den === 0n) throw new RangeError("Fraction: zero denominator");
    if (den < 0n) [num, den] = [-num, -den];
    const g = gcd(num, den);
    if (g > 1n) [num, den] = [num / g, den / g];
    this.num = num;
    this.den = den;
    Object.freeze(this);
  }

  /** A Fraction from a Fraction, a BigInt or an integer number. */
  static from(x) {
    return x instanceof Fraction ? x : new Fraction(x);
  }

  add(o) { o = Fraction.from(o); return new Fraction(this.num * o.den + o.num * this.den, this.den * o.den); }
  sub(o) { o = Fraction.from(o); return new Fraction(this.num * o.den - o.num * this.den, this.den * o.den); }
  mul(o) { o = Fraction.from(o); return new Fraction(this.num * o.num, this.den * o.den); }
  div(o) { o = Fraction.from(o); return new Fraction(this.num * o.den, this.den * o.num); }
  neg() { return new Fraction(-this.num, this.den); }
  /** -1, 0 or 1 as this is below, equal to or above `o`. */
  cmp(o) {
    o = Fraction.from(o);
    const d = this.num * o.den - o.num * this.den;
    return d < 0n ? -1 : d > 0n ? 1 : 0;
  }
  sign() { return this.num < 0n ? -1 : this.num > 0n ? 1 : 0; }
  equals(o) { return this.cmp(o) === 0; }
  toString() { return this.den === 1n ? String(this.num) : `${this.num}/${this.den}`; }
  /** The nearest double (ties to even). */
  toNumber() { return signed(roundBinary(abs(this.num), this.den, DOUBLE), this.num < 0n); }
}

const abs = (n) => (n < 0n ? -n : n);
const bitLength = (n) => (n === 0n ? 0 : n.toString(2).length); // n > 0n

// ---------------------------------------------------------------------------------------------
// The grammar. Anything else is a ValueError: tapecheck writes only these forms.

const SPECIAL = /^(-?)(nan|inf)$/i;
const FRACTION = /^(-?)(\d+)\/(\d+)$/;
const HEX = /^(-?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/;
const DECIMAL = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

function isDecimal(text) {
  const m = DECIMAL.exec(text);
  return m !== null && Boolean(m[2] || m[3]); // a digit before or after the point
}

/**
 * The exact value of a finite literal as {negative, num, den} with num >= 0n, den > 0n, or null
 * for the specials. `negative` keeps the sign of a zero ("-0", "-0/3", "-0x0p+0").
 */
function parseExact(text) {
  let m = FRACTION.exec(text);
  if (m) {
    const den = BigInt(m[3]);
    if (den === 0n) throw new ValueError(`'${text}': zero denominator`);
    return { negative: m[1] === "-", num: BigInt(m[2]), den };
  }
  m = HEX.exec(text);
  if (m && (m[2] || m[3])) {
    const fraction = m[3] ?? "";
    const digits = BigInt("0x" + (m[2] + fraction || "0"));
    const shift = BigInt(m[4]) - 4n * BigInt(fraction.length);
    return shift >= 0n
      ? { negative: m[1] === "-", num: digits << shift, den: 1n }
      : { negative: m[1] === "-", num: digits, den: 1n << -shift };
  }
  m = DECIMAL.exec(text);
  if (m && (m[2] || m[3])) {
    const fraction = m[3] ?? "";
    const digits = BigInt((m[2] + fraction) || "0");
    const exponent = BigInt(m[4] ?? "0") - BigInt(fraction.length);
    return exponent >= 0n
      ? { negative: m[1] === "-", num: digits * 10n ** exponent, den: 1n }
      : { negative: m[1] === "-", num: digits, den: 10n ** -exponent };
  }
  if (SPECIAL.test(text)) return null;
  throw new ValueError(`'${text}' is not a value (docs/semantics.md §4.2)`);
}

// ---------------------------------------------------------------------------------------------
// Correct rounding of an exact value to a binary format.

const DOUBLE = { precision: 53, minNormalExponent: -1022, maxExponent: 1024 };
const FLOAT = { precision: 24, minNormalExponent: -126, maxExponent: 128 };

/**
 * The nonnegative rational num/den rounded to the nearest value of `format`, ties to even,
 * subnormals included, overflow to Infinity. Zero comes back as +0.
 */
function roundBinary(num, den, format) {
  if (num === 0n) return 0;
  let e = bitLength(num) - bitLength(den); // 2^(e-1) < num/den < 2^(e+1)
  const up = BigInt(Math.max(e, 0)), down = BigInt(Math.max(-e, 0));
  if ((num << down) < (den << up)) e -= 1; // now 2^e <= num/den < 2^(e+1)
  const quantum = Math.max(e, format.minNormalExponent) - (format.precision - 1);
  const [n, d] = quantum < 0 ? [num << BigInt(-quantum), den] : [num, den << BigInt(quantum)];
  let units = n / d;
  const twiceRest = 2n * (n % d);
  if (twiceRest > d || (twiceRest === d && (units & 1n) === 1n)) units += 1n;
  if (bitLength(units) + quantum > format.maxExponent) return Infinity;
  // units < 2^53 is an exact number and 2 ** quantum is exact (-1074 <= quantum <= 971): the
  // product is the rounded value itself, which is representable.
  return Number(units) * 2 ** quantum;
}

const signed = (x, negative) => (negative ? -x : x);

function special(text) {
  const m = SPECIAL.exec(text);
  if (m[2].toLowerCase() === "nan") return NaN;
  return m[1] === "-" ? -Infinity : Infinity;
}

function decodeDouble(text) {
  // Number() is correctly rounded for decimals (ECMA-262 StringToNumber) and keeps "-0"; the
  // grammar is checked first because Number() also reads "0x10", "Infinity" and " 1 ".
  if (isDecimal(text)) {
    const value = Number(text);
    if (!Number.isNaN(value)) return value;
  }
  const q = parseExact(text);
  if (q === null) return special(text);
  return signed(roundBinary(q.num, q.den, DOUBLE), q.negative);
}

const bits = new DataView(new ArrayBuffer(8));
const SMALLEST_FLOAT_MIDPOINT = 2 ** -150; // halfway between 0 and the smallest float subnormal

/**
 * Whether a finite double lies exactly halfway between two neighbouring float32 values (or at
 * the overflow threshold 2^128 - 2^103), where rounding it again is not rounding the exact value.
 */
function isFloat32Midpoint(d) {
  const magnitude = Math.abs(d);
  if (magnitude < SMALLEST_FLOAT_MIDPOINT) return false; // every smaller double is no midpoint
  bits.setFloat64(0, magnitude);
  const exponent = ((bits.getUint32(0) >>> 20) & 0x7ff) - 1023; // a normal double here
  const halfQuantum = Math.max(exponent, FLOAT.minNormalExponent) - FLOAT.precision;
  const scaled = magnitude * 2 ** -halfQuantum;
  return Number.isInteger(scaled) && scaled % 2 === 1;
}

/**
 * The float32 nearest the exact value of `text`. Rounding through a double is wrong only when
 * the double lands exactly on a float32 midpoint (a tie the exact value need not have): rounding
 * is monotone and midpoints are doubles, so otherwise both lie strictly between the same two
 * midpoints. Only then is the exact value rounded from its fraction.
 */
function decodeFloat(text) {
  const d = decodeDouble(text);
  const f = Math.fround(d);
  if (f === d || !Number.isFinite(d) || !isFloat32Midpoint(d)) return f;
  const q = parseExact(text);
  return signed(roundBinary(q.num, q.den, FLOAT), q.negative);
}

function noSpecials(text, carrier) {
  const q = parseExact(text);
  if (q === null) throw new ValueError(`'${text}': has no exact value on the ${carrier} carrier`);
  return q;
}

function decodeRational(text) {
  const q = noSpecials(text, "rational");
  return new Fraction(q.negative ? -q.num : q.num, q.den);
}

function modInverse(a, m) {
  // Extended Euclid; m is prime and a is not a multiple of it.
  let [r0, r1, s0, s1] = [((a % m) + m) % m, m, 1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  return ((s0 % m) + m) % m;
}

const residue = (n) => ((n % MODP) + MODP) % MODP;

function decodeModp(text) {
  if (/^-?\d+$/.test(text)) return residue(BigInt(text)); // the common case
  const q = noSpecials(text, "modp");
  const f = new Fraction(q.negative ? -q.num : q.num, q.den);
  if (f.den % MODP === 0n) throw new ValueError(`'${text}': denominator is divisible by 2^61-1`);
  return residue(f.num * modInverse(f.den, MODP));
}

const DECODERS = {
  rational: decodeRational,
  "rational-noeq": decodeRational,
  modp: decodeModp,
  double: decodeDouble,
  float: decodeFloat,
};

/** The carriers this library decodes (not `interval`, whose values must be MPFI's own). */
export const CARRIERS = Object.freeze(Object.keys(DECODERS));

/**
 * One value string of the file format as the carrier's JavaScript value: a Fraction on
 * `rational`/`rational-noeq`, a BigInt residue in [0, 2^61-1) on `modp`, a number on `double`,
 * a number holding the float32 nearest the exact value on `float`.
 * @param {string} carrier
 * @param {string} text
 */
export function decodeValue(carrier, text) {
  const decode = DECODERS[carrier];
  if (decode === undefined) throw new ValueError(`unknown carrier '${carrier}'`);
  if (typeof text !== "string") throw new ValueError(`a value must be a string, got ${JSON.stringify(text)}`);
  return decode(text);
}

/** The decoder of one carrier (a function from value string to value). */
export function decoderOf(carrier) {
  const decode = DECODERS[carrier];
  if (decode === undefined) throw new ValueError(`unknown carrier '${carrier}'`);
  return (text) => {
    if (typeof text !== "string") throw new ValueError(`a value must be a string, got ${JSON.stringify(text)}`);
    return decode(text);
  };
}

// ---------------------------------------------------------------------------------------------
// Encoding.

/**
 * An IEEE number as the shortest decimal that reads back as the same double (ECMAScript's
 * Number::toString), and "-0", "nan", "inf", "-inf": exact, in the value grammar ("1e+21" too).
 */
function encodeIeee(x) {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  return String(x);
}

function encodeExact(value) {
  if (value instanceof Fraction) return value.toString();
  if (typeof value === "bigint" || Number.isInteger(value)) return String(BigInt(value));
  throw new TypeError(`an exact carrier's value must be a Fraction or an integer, got ${value}`);
}

const ENCODERS = {
  rational: encodeExact,
  "rational-noeq": encodeExact,
  modp: (value) => String(residue(BigInt(value))),
  double: (value) => encodeIeee(Number(value)),
  // A float carrier's value is read back as the float nearest the decimal; rounding a double
  // to float32 here first makes that the float nearest the double itself, as a hex float would.
  float: (value) => encodeIeee(Math.fround(Number(value))),
};

/**
 * A carrier value as a string of the value grammar, without loss.
 * @param {string} carrier
 * @param {Fraction|bigint|number} value
 */
export function encodeValue(carrier, value) {
  const encode = ENCODERS[carrier];
  if (encode === undefined) throw new ValueError(`unknown carrier '${carrier}'`);
  return encode(value);
}

/** The encoder of one carrier (a function from value to value string). */
export function encoderOf(carrier) {
  const encode = ENCODERS[carrier];
  if (encode === undefined) throw new ValueError(`unknown carrier '${carrier}'`);
  return encode;
}

/** For tests: exact rounding of num/den (BigInts, num >= 0n) to float32 and to double. */
export const _internal = {
  roundToFloat: (num, den) => roundBinary(num, den, FLOAT),
  roundToDouble: (num, den) => roundBinary(num, den, DOUBLE),
  isFloat32Midpoint,
  parseExact,
};
