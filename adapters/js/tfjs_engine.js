// TensorFlow.js (tfjs-core with its CPU backend) checked by tapecheck through its engine
// protocol, on `float`: TF.js has no float64 dtype on any backend (tf.tensor(..., "float64")
// throws "Unknown data type float64"), so `double` is not offered.
//
//     node adapters/js/tfjs_engine.js          (after `npm ci` in adapters/js)
//
// Each position's forward value is computed eagerly, op by op, for the context. A backward pass
// re-runs the same ops under tf.engine().gradients (the tape call under tf.grads and
// tf.valueAndGrads), TF.js's own reverse mode, from the leaves
// (inputs and the leaves `const` and `detach` make) to the seeded positions, flattened and
// concatenated into one output whose dy is their seeds. An identity with a custom gradient
// (tf.customGrad) after each node hands on the cotangent TF.js accumulated there and records it:
// the gradient at a node. The CPU backend's kernels are deterministic, so the re-run computes
// the same values as the eager forward.
//
// TAPECHECK_TFJS_PLANT=<name> swaps one of TF.js's gradient functions for a wrong one (PLANTS
// below), so that tests can see tapecheck catch it.

import { DomainError, Engine, Unsupported, serve } from "./tapecheck_engine.js";
import { quietly, tf } from "./tfjs.js";

/** TF.js's version, as the profile's name reports it. */
export const TFJS_VERSION = tf.version_core;

// Every op of docs/semantics.md §2.1 that TF.js has and whose conventions the profile can
// declare. Left out (README.md in this directory, "What it leaves out"):
// - relu, max, min: TF.js's gradients multiply the cotangent by a 0/1 mask (dy·step(x),
//   dy·(a >= b)), so where the specification's term is zero by selection TF.js gives ct·0: NaN
//   for an infinite or NaN cotangent. The profile's kink choices have no such variant (abs alone
//   has `product`), so kink_conventions fails on them with any declaration;
// - abs: its gradient is dy·step(x, -1), -ct at x = 0 (and ct·(-1) elsewhere below 0), a value at
//   the kink that none of the profile's abs conventions (zero, product, sign) describes;
// - opaque: tapecheck's own test programs, with no TF.js counterpart.
// clamp with lo = hi is answered unsupported (OP_TABLE's note). TAPECHECK_TFJS_ALL_OPS=1 puts
// relu, max, min, abs and clamp{lo=hi} back, for surveys that show the differences.
const ALL_OPS = process.env.TAPECHECK_TFJS_ALL_OPS === "1";

export const OPS = [
  "add", "sub", "mul", "div", "neg", "square", "scale", "inv", "clamp",
  "exp", "log", "sqrt", "tanh", "sigmoid", "softplus", "sin", "cos",
  "sum", "sum_axis", "mean", "dot", "matmul", "transpose", "linear",
  "reshape", "broadcast", "concat0", "slice0", "const", "detach", "mask", "gather0",
  "mse_loss", "softmax_last", "log_softmax_last",
  ...(ALL_OPS ? ["relu", "max", "min", "abs"] : []),
];

// The conventions TF.js's gradient functions have (README.md in this directory: the survey that
// measured them). clamp: where(lo <= x <= hi, dy, 0), inclusive, zero by selection; relu (with
// TAPECHECK_TFJS_ALL_OPS): dy·step(x), ct·0 at 0; maximum: dy·(a >= b) to a and dy·(a < b) to b,
// so a tie goes to the first argument (minimum likewise with <= and >). The sign of zero is not
// kept (ct·0 is -0 for a negative ct, tf.maximum(-0, +0) is +0, the dense pass adds its +0 seed
// in TF.js's own order). A single-output pass is TF.js's gradient from that output alone: only
// its ancestors run.
export const PROFILE = {
  name: `tfjs-core ${TFJS_VERSION} (cpu)`,
  carriers: ["float"],
  ops: OPS,
  single_output: "ancestors",
  zero_sign: "unspecified",
  kinks: { clamp: "pass", ...(ALL_OPS ? { relu: "zero", max: "first", min: "first" } : {}) },
  kink_conventions_declared: true,
};

const LOG_DOMAIN = "input contains values <= 0 or NaN";

function matrixVector(a, v) {
  const [m, k] = a.shape;
  return tf.reshape(tf.matMul(a, tf.reshape(v, [k, 1])), [m]);
}

/** op -> (args, attrs, data) => tf.Tensor, for every op but the leaves `const` and `detach`. */
const OP_TABLE = {
  add: ([a, b]) => tf.add(a, b),
  sub: ([a, b]) => tf.sub(a, b),
  mul: ([a, b]) => tf.mul(a, b),
  div: ([a, b]) => tf.div(a, b), // IEEE: 1/0 = inf, no domain check on float
  max: ([a, b]) => tf.maximum(a, b),
  min: ([a, b]) => tf.minimum(a, b),
  neg: ([x]) => tf.neg(x),
  square: ([x]) => tf.square(x),
  scale: ([x], { c }) => tf.mul(tf.scalar(c, "float32"), x),
  inv: ([x]) => tf.reciprocal(x),
  relu: ([x]) => tf.relu(x),
  abs: ([x]) => tf.abs(x),
  clamp: ([x], { lo, hi }) => tf.clipByValue(x, lo, hi),
  exp: ([x]) => tf.exp(x),
  log: ([x]) => tf.log(x),
  sqrt: ([x]) => tf.sqrt(x),
  tanh: ([x]) => tf.tanh(x),
  sigmoid: ([x]) => tf.sigmoid(x),
  softplus: ([x]) => tf.softplus(x),
  sin: ([x]) => tf.sin(x),
  cos: ([x]) => tf.cos(x),
  sum: ([x]) => tf.sum(x),
  sum_axis: ([x], { axis }) => tf.sum(x, axis),
  mean: ([x]) => tf.mean(x),
  dot: ([a, b]) => tf.dot(a, b),
  matmul: ([a, b]) => (b.rank === 1 ? matrixVector(a, b) : tf.matMul(a, b)),
  transpose: ([x]) => tf.transpose(x),
  linear: ([w, x, b]) => tf.add(matrixVector(w, x), b), // the fold, then the bias (§2.2)
  reshape: ([x], { shape }) => tf.reshape(x, shape),
  broadcast: ([x], { shape }) => tf.broadcastTo(x, shape), // x's shape is a suffix: numpy-style
  concat0: ([a, b]) => tf.concat([a, b], 0),
  slice0: ([x], { start, len }) => tf.slice(x, [start, ...x.shape.slice(1).map(() => 0)], [len, ...x.shape.slice(1)]),
  mask: ([x], { key }, data) => tf.mul(x, tf.tensor(data[key].values, data[key].shape, "float32")), // data: no gradient
  gather0: ([x], { key }, data) => tf.gather(x, tf.tensor1d(data[key], "int32"), 0),
  mse_loss: ([a, b]) => tf.losses.meanSquaredError(a, b), // mean of (a - b)^2
  softmax_last: ([x]) => tf.softmax(x, -1),
  log_softmax_last: ([x]) => tf.logSoftmax(x, -1),
};

/**
 * Wrong gradient functions, registered over TF.js's own when TAPECHECK_TFJS_PLANT names one:
 * tanh-grad (1 - y instead of 1 - y², caught by the accuracy oracle) and square-grad (dy·x
 * instead of dy·2x, caught on the exact domain).
 */
const PLANTS = {
  "tanh-grad": {
    kernelName: "Tanh",
    outputsToSave: [true],
    gradFunc: (dy, [y]) => ({ x: () => tf.mul(tf.sub(tf.scalar(1), y), dy) }),
  },
  "square-grad": {
    kernelName: "Square",
    inputsToSave: ["x"],
    gradFunc: (dy, [x]) => ({ x: () => tf.mul(dy, x) }),
  },
};

/** One position: its eager value, and how to compute it again under the gradient tape. */
class Position {
  constructor(index, value, op = null, args = [], attrs = {}, data = {}) {
    Object.assign(this, { index, value, op, args, attrs, data });
  }

  get isLeaf() {
    return this.op === null;
  }
}

/** The positions whose values `outputs` depend on through ops (leaves stop the walk). */
function ancestors(positions, outputs) {
  const seen = new Set();
  const stack = [...outputs];
  while (stack.length > 0) {
    const p = stack.pop();
    if (seen.has(p)) continue;
    seen.add(p);
    stack.push(...positions[p].args);
  }
  return seen;
}

export class TfjsEngine extends Engine {
  profile = PROFILE;

  leaf(carrier, shape, values) {
    return this.#position(null, [], {}, {}, tf.tensor(Float32Array.from(values), shape, "float32"));
  }

  apply(op, args, attrs, shape, data) {
    if (op === "const") return this.leaf(this.carrier, attrs.shape, attrs.values);
    if (op === "detach") {
      // A new leaf with the same values: it receives cotangent and passes none on.
      return this.leaf(this.carrier, args[0].value.shape, args[0].value.dataSync());
    }
    const fn = OP_TABLE[op];
    if (fn === undefined) throw new Unsupported(op);
    if (op === "clamp" && attrs.lo === attrs.hi && !ALL_OPS) {
      // tf.clipByValue returns tf.fill(lo) when lo = hi: NaN does not pass through, and no
      // gradient flows even at x = lo = hi, where it passes ct when lo < hi. No `clamp` kink
      // convention of the profile says both, so these cases are left out.
      throw new Unsupported("clamp{lo=hi}");
    }
    if (op === "log" && !args[0].value.dataSync().every((x) => x > 0)) {
      // The specification's domain check (docs/semantics.md §1.10): the reference fails here,
      // where tf.log would give NaN or -inf, so both sides agree the case has no values.
      throw new DomainError(LOG_DOMAIN);
    }
    const value = tf.tidy(() => fn(args.map((a) => a.value), attrs, data)); // frees the op's temporaries
    return this.#position(op, args.map((a) => a.index), attrs, data, value);
  }

  values(position) {
    return position.value.dataSync();
  }

  /**
   * A dense pass (every position seeded) or a single-output pass (one seeded): the gradient at
   * every position from TF.js's reverse mode, null where no cotangent reached it.
   */
  backward(positions, seeds) {
    const outputs = [...seeds.keys()];
    const dense = seeds.size === positions.length;
    const wanted = dense ? new Set(positions.map((p) => p.index)) : ancestors(positions, outputs);
    const leaves = positions.filter((p) => p.isLeaf && wanted.has(p.index));
    const recorded = new Array(positions.length).fill(null);
    tf.tidy(() => {
      const objective = (...leafValues) => {
        const values = new Array(positions.length);
        leaves.forEach((leaf, k) => { values[leaf.index] = leafValues[k]; });
        for (const p of positions) {
          if (p.isLeaf || !wanted.has(p.index)) continue;
          const out = OP_TABLE[p.op](p.args.map((a) => values[a]), p.attrs, p.data);
          values[p.index] = tap(out, (dy) => { recorded[p.index] = dy.dataSync().slice(); });
        }
        const flat = outputs.map((p) => tf.reshape(values[p], [-1]));
        return flat.length === 1 ? flat[0] : tf.concat(flat, 0);
      };
      const dy = tf.tensor1d(Float32Array.from(outputs.flatMap((p) => seeds.get(p))), "float32");
      // tf.grads' own call, allowing a leaf no cotangent reaches (tf.grads would throw): a leaf
      // that is an ancestor in the graph need not be one on TF.js's tape.
      const leafValues = leaves.map((leaf) => leaf.value);
      const { grads } = tf.engine().gradients(() => objective(...leafValues), leafValues, dy, true);
      leaves.forEach((leaf, k) => { recorded[leaf.index] = grads[k]?.dataSync().slice() ?? null; });
    });
    return recorded;
  }

  release(positions) {
    for (const p of positions) p?.value.dispose();
    this.#count = 0; // the next request numbers its positions from 0 again
  }

  #count = 0;

  #position(op, args, attrs, data, value) {
    this.#count += 1;
    return new Position(this.#count - 1, value, op, args, attrs, data);
  }
}

/**
 * x itself under a new tensor, whose gradient function hands the cotangent accumulated at it to
 * `record` and passes it on unchanged: how a node's gradient is read from TF.js's tape.
 */
function tap(x, record) {
  return tf.customGrad((input) => ({
    value: tf.clone(input),
    gradFunc: (dy) => {
      record(dy);
      return tf.clone(dy);
    },
  }))(x);
}

function plant(name) {
  const config = PLANTS[name];
  if (config === undefined) {
    throw new Error(`TAPECHECK_TFJS_PLANT='${name}': the plants are ${Object.keys(PLANTS).join(", ")}`);
  }
  quietly(() => tf.registerGradient(config)); // over TF.js's own, with a notice kept quiet
}

if (process.env.TAPECHECK_TFJS_PLANT) plant(process.env.TAPECHECK_TFJS_PLANT);

if (import.meta.url === `file://${process.argv[1]}`) serve(new TfjsEngine());
