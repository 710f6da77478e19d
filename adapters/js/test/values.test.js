// Value decoding and encoding (docs/file-format.md#values), the twin of the Python client's
// DecodeRationalTest ... EncodeTest (tests/python/test_tapecheck_engine.py).

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Fraction, MODP, ValueError, _internal, decodeValue, encodeValue } from "../values.js";

const FLT_MAX = 3.4028234663852886e38;
const FLT_TRUE_MIN = 2 ** -149;

/** The exact decimal text of the dyadic rational num / 2^k (num a BigInt, k >= 0). */
function exactDecimal(num, k) {
  const negative = num < 0n;
  const digits = ((negative ? -num : num) * 5n ** BigInt(k)).toString().padStart(k + 1, "0");
  const [whole, fraction] = k ? [digits.slice(0, -k), digits.slice(-k)] : [digits, ""];
  return (negative ? "-" : "") + whole + (fraction ? "." + fraction : "");
}

const isNegativeZero = (x) => Object.is(x, -0);

describe("rational", () => {
  it("reads the grammar as exact fractions", () => {
    const cases = {
      "3": "3", "-3/4": "-3/4", "-1.25": "-5/4", "2.5e-3": "1/400", "2.5E+3": "2500", ".5": "1/2",
      "1.": "1", "-0": "0", "0x1.8p+1": "3", "-0X1P-2": "-1/4", "6/4": "3/2",
    };
    for (const [text, want] of Object.entries(cases)) {
      for (const carrier of ["rational", "rational-noeq"]) {
        const got = decodeValue(carrier, text);
        assert.ok(got instanceof Fraction, text);
        assert.equal(got.toString(), want, text);
      }
    }
  });

  it("keeps hex floats exact beyond double precision", () => {
    const got = decodeValue("rational", "0x1.00000000000001p+0");
    assert.ok(got.equals(new Fraction((1n << 56n) + 1n, 1n << 56n)));
  });

  it("refuses the specials and anything outside the grammar", () => {
    for (const text of ["nan", "inf", "-inf"]) {
      assert.throws(() => decodeValue("rational", text), /has no exact value on the rational carrier/);
    }
    for (const text of ["", "-", ".", "1/0", "0x10", "1e", "+1", " 1", "Infinity", "1_0", "--1"]) {
      assert.throws(() => decodeValue("rational", text), ValueError, JSON.stringify(text));
    }
    assert.throws(() => decodeValue("rational", 3), ValueError); // a number, not a string
  });

  it("does arithmetic in lowest terms", () => {
    const a = new Fraction(-3, 4), b = new Fraction(1, 6);
    assert.equal(a.add(b).toString(), "-7/12");
    assert.equal(a.sub(b).toString(), "-11/12");
    assert.equal(a.mul(b).toString(), "-1/8");
    assert.equal(a.div(b).toString(), "-9/2");
    assert.equal(new Fraction(2, -4).toString(), "-1/2");
    assert.equal(a.cmp(b), -1);
    assert.equal(new Fraction(1, 3).toNumber(), 1 / 3);
  });
});

describe("modp", () => {
  it("reads residues", () => {
    assert.equal(decodeValue("modp", "-1"), MODP - 1n);
    assert.equal(decodeValue("modp", String(MODP)), 0n);
    assert.equal((decodeValue("modp", "1/2") * 2n) % MODP, 1n);
    assert.equal(decodeValue("modp", "0.5"), decodeValue("modp", "1/2"));
    assert.equal((decodeValue("modp", "-3/4") * 4n) % MODP, MODP - 3n);
  });

  it("refuses a denominator divisible by p", () => {
    assert.throws(() => decodeValue("modp", `1/${MODP}`), /divisible by 2\^61-1/);
  });
});

describe("double", () => {
  const decode = (text) => decodeValue("double", text);

  it("reads decimals and specials", () => {
    assert.equal(decode("0.1"), 0.1);
    assert.equal(decode("1e400"), Infinity);
    assert.equal(decode("4.9406564584124654e-324"), 5e-324);
    for (const text of ["nan", "NaN", "NAN"]) assert.ok(Number.isNaN(decode(text)), text);
    for (const [text, want] of [["inf", Infinity], ["-INF", -Infinity], ["Inf", Infinity]]) assert.equal(decode(text), want);
  });

  it("keeps negative zero in every spelling", () => {
    for (const text of ["-0", "-0.0", "-0e5", "-0/3", "-0x0p+0", "-1e-400"]) assert.ok(isNegativeZero(decode(text)), text);
    assert.ok(Object.is(decode("0"), 0));
  });

  it("rounds fractions and hex floats correctly", () => {
    assert.equal(decode("1/3"), 1 / 3);
    assert.equal(decode("-0x1.8p+1"), -3);
    assert.equal(decode("0x1.fffffffffffff8p+0"), 2); // a tie to even, up
    assert.equal(decode("0x1.00000000000008p+0"), 1); // a tie to even, down
    assert.equal(decode("0x1p-1075"), 0); // half the smallest subnormal: ties to 0
    assert.equal(decode("0x1.8p-1075"), 5e-324);
    assert.equal(decode("0x1p1024"), Infinity);
    const midpoint = (1n << 53n) + 1n; // 1 + 2^-53, between 1 and the next double
    assert.equal(decode(exactDecimal(midpoint, 53)), 1);
    assert.equal(decode(exactDecimal((midpoint << 27n) + 1n, 80)), 1 + 2 ** -52);
  });

  it("agrees with Number() on random doubles written exactly", () => {
    const view = new DataView(new ArrayBuffer(8));
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) >>> 0);
    for (let i = 0; i < 2000; i++) {
      view.setUint32(0, next());
      view.setUint32(4, next());
      const d = view.getFloat64(0);
      if (!Number.isFinite(d)) continue;
      assert.ok(Object.is(decode(encodeValue("double", d)), d), String(d));
      // The exact fraction of d through the exact path (a hex float) reads back as d.
      const hex = (d < 0 || Object.is(d, -0) ? "-" : "") + "0x" + hexMantissa(d);
      assert.ok(Object.is(decode(hex), d), hex);
    }
  });
});

/** A finite double as hex digits "m.mmmmp±e" (its exact value), for the exact path. */
function hexMantissa(d) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(d));
  const high = view.getUint32(0), low = view.getUint32(4);
  const biased = high >>> 20;
  const fraction = ((BigInt(high & 0xfffff) << 32n) | BigInt(low)).toString(16).padStart(13, "0");
  return biased === 0 ? `0.${fraction}p-1022` : `1.${fraction}p${biased - 1023}`;
}

describe("float", () => {
  const decode = (text) => decodeValue("float", text);

  it("avoids the double-rounding trap", () => {
    // 1 + 2^-24 is halfway between the floats 1 and 1 + 2^-23; a hair above it the exact value
    // rounds up, but through a double it lands on the midpoint and then ties down to 1.
    const midpoint = (1n << 24n) + 1n; // (1 + 2^-24) * 2^24
    const above = exactDecimal((midpoint << 46n) + 1n, 70);
    assert.equal(Number(above), 1 + 2 ** -24); // the trap is real
    assert.equal(decode(above), 1 + 2 ** -23);
    assert.equal(decode(exactDecimal((midpoint << 46n) - 1n, 70)), 1);
    assert.equal(decode(exactDecimal(midpoint, 24)), 1); // a true tie goes to even
    assert.equal(decode("0x1.0000010000000000001p+0"), 1 + 2 ** -23); // hex, same trap
  });

  it("reads subnormals", () => {
    assert.equal(decode("1.4e-45"), FLT_TRUE_MIN);
    assert.equal(decode(exactDecimal(1n, 150)), 0); // halfway between 0 and the smallest subnormal
    assert.equal(decode(exactDecimal((1n << 70n) + 1n, 220)), FLT_TRUE_MIN);
    assert.equal(decode("1.1754942e-38"), 2 ** -126 - 2 ** -149); // the largest subnormal
  });

  it("overflows to infinity at the threshold", () => {
    assert.equal(decode("3.4028235e38"), FLT_MAX);
    const threshold = (1n << 128n) - (1n << 103n); // halfway between FLT_MAX and 2^128
    assert.equal(decode(exactDecimal(threshold - 1n, 0)), FLT_MAX);
    assert.equal(decode(exactDecimal(threshold, 0)), Infinity);
    assert.equal(decode("-1e39"), -Infinity);
  });

  it("gives float32 values", () => {
    assert.equal(decode("0.1"), Math.fround(0.1));
    assert.notEqual(decode("0.1"), 0.1);
    assert.equal(decode("1/3"), Math.fround(1 / 3));
  });

  it("keeps specials and negative zero", () => {
    assert.ok(Number.isNaN(decode("nan")));
    assert.equal(decode("-Inf"), -Infinity);
    for (const text of ["-0", "-1e-50", "-0/7"]) assert.ok(isNegativeZero(decode(text)), text);
  });

  it("rounds exactly as Math.fround does on every double", () => {
    const view = new DataView(new ArrayBuffer(8));
    let seed = 5;
    const next = () => (seed = (seed * 1664525 + 1013904223) >>> 0);
    for (let i = 0; i < 3000; i++) {
      view.setUint32(0, next());
      view.setUint32(4, next());
      const d = view.getFloat64(0);
      if (!Number.isFinite(d) || d === 0) continue;
      const magnitude = Math.abs(d);
      const hex = hexMantissa(magnitude);
      const [mantissa, exponent] = hex.split("p");
      const [whole, fraction] = mantissa.split(".");
      const shift = Number(exponent) - 4 * fraction.length;
      const num = BigInt("0x" + whole + fraction);
      const [n, den] = shift >= 0 ? [num << BigInt(shift), 1n] : [num, 1n << BigInt(-shift)];
      assert.equal(_internal.roundToFloat(n, den), Math.fround(magnitude), hex);
    }
  });
});

describe("encoding", () => {
  it("writes exact carriers canonically", () => {
    assert.equal(encodeValue("rational", new Fraction(-3, 4)), "-3/4");
    assert.equal(encodeValue("rational", new Fraction(6, 3)), "2");
    assert.equal(encodeValue("rational-noeq", new Fraction(0)), "0");
    assert.equal(encodeValue("rational", 5n), "5");
    assert.equal(encodeValue("modp", -1n), "2305843009213693950");
    assert.equal(encodeValue("modp", 7), "7");
    assert.throws(() => encodeValue("rational", 0.5), TypeError);
  });

  it("writes IEEE values as the shortest round-trip decimal and the specials", () => {
    assert.equal(encodeValue("double", -0), "-0");
    assert.equal(encodeValue("double", 0), "0");
    assert.equal(encodeValue("double", NaN), "nan");
    assert.equal(encodeValue("double", -Infinity), "-inf");
    assert.equal(encodeValue("float", Infinity), "inf");
    assert.equal(encodeValue("double", 1.5), "1.5");
    assert.equal(encodeValue("double", 1e21), "1e+21");
    assert.equal(encodeValue("double", 5e-324), "5e-324");
    assert.equal(encodeValue("float", Math.fround(0.1)), "0.10000000149011612");
  });

  it("rounds a double given on float to float32 first, as a hex float read as float would", () => {
    // 1 + 2^-24 is a float midpoint: its shortest decimal is above it and would round up when
    // read as a float; the value itself ties to even, down to 1.
    assert.equal(encodeValue("float", 1 + 2 ** -24), "1");
    assert.equal(encodeValue("float", 1e39), "inf");
  });

  it("round-trips", () => {
    const cases = [
      ["double", [0.1, -0, 5e-324, 1e308, -2.5, 2 ** -1022, Number.MAX_VALUE]],
      ["float", [decodeValue("float", "0.1"), FLT_TRUE_MIN, FLT_MAX, -0, 2 ** -126]],
    ];
    for (const [carrier, values] of cases) {
      for (const v of values) assert.ok(Object.is(decodeValue(carrier, encodeValue(carrier, v)), v), `${carrier} ${v}`);
    }
    for (const q of [new Fraction(-7, 3), new Fraction(10n ** 30n, 7n)]) {
      assert.ok(decodeValue("rational", encodeValue("rational", q)).equals(q));
    }
  });
});
