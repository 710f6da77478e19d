// What tapecheck found in TensorFlow.js 4.22 (README.md in this directory, "Findings"), each
// reproduced in plain TF.js: when a new version changes one, its test fails and says so.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { tf } from "../tfjs.js";

const values = (t) => Array.from(t.dataSync());
const grad = (f, x, dy) => values(tf.grad(f)(tf.tensor(x), tf.tensor(dy)));

describe("TF.js 4.22 findings", () => {
  it("is the version these findings are about", () => {
    assert.match(tf.version_core, /^4\.22\./);
  });

  it("has no float64: tensors are float32 (or int32, bool, complex64, string) on every backend", () => {
    assert.throws(() => tf.tensor([1], [1], "float64"), /Unknown data type float64/);
  });

  it("1. gather's gradient spreads an infinite cotangent as NaN into rows it does not touch", () => {
    // rows [0, 0, 1] of a 2x2 x; dy is inf only in the last gathered row, which is row 1 of x.
    const g = grad((x) => tf.gather(x, tf.tensor1d([0, 0, 1], "int32"), 0), [[0, 0], [0, 0]], [[0, 0], [0, 0], [0, Infinity]]);
    assert.deepEqual(g, [0, NaN, 0, Infinity]); // exact: [0, 0, 0, inf]
  });

  it("2. relu, maximum and minimum zero a cotangent by multiplying it by 0: NaN for an infinite one", () => {
    assert.deepEqual(grad((x) => tf.relu(x), [-1], [Infinity]), [NaN]); // exact: 0
    const [ga, gb] = tf.grads((a, b) => tf.maximum(a, b))([tf.tensor([2]), tf.tensor([1])], tf.tensor([Infinity]));
    assert.deepEqual([values(ga), values(gb)], [[Infinity], [NaN]]); // exact: [inf], [0]
  });

  it("3. relu passes NaN forward and multiplies the cotangent by NaN", () => {
    assert.deepEqual(values(tf.relu(tf.tensor([NaN]))), [NaN]);
    assert.deepEqual(grad((x) => tf.relu(x), [NaN], [3]), [NaN]); // spec: +0 and 0; PyTorch: NaN and 3
  });

  it("4. abs's gradient at 0 is -dy", () => {
    assert.deepEqual(grad((x) => tf.abs(x), [0], [3]), [-3]); // spec: 0; PyTorch: 0 (dy·sgn(0))
  });

  it("5. clipByValue with min = max is a constant: NaN is clipped and tf.grad throws", () => {
    assert.deepEqual(values(tf.clipByValue(tf.tensor([NaN]), 1, 1)), [1]);
    assert.deepEqual(values(tf.clipByValue(tf.tensor([NaN]), 1, 2)), [NaN]); // NaN passes when min < max
    assert.throws(() => grad((x) => tf.clipByValue(x, 1, 1), [1], [3]), /Cannot compute gradient of y=f\(x\)/);
    assert.deepEqual(grad((x) => tf.clipByValue(x, 1, 2), [1], [3]), [3]); // ct passes at a bound when min < max
  });

  it("6. maximum and minimum give an unordered (NaN) pair no gradient, a tie all of it to the first argument", () => {
    const [ga, gb] = tf.grads((a, b) => tf.maximum(a, b))([tf.tensor([NaN, 2]), tf.tensor([1, 2])], tf.tensor([3, 3]));
    assert.deepEqual([values(ga), values(gb)], [[0, 3], [0, 0]]); // spec: [1.5, 1.5] to each at both
  });
});
