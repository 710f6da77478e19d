// The TF.js engine in this process: every tensor a request makes is freed once it is answered.

import assert from "node:assert/strict";
import { it } from "node:test";

import { answer } from "../tapecheck_engine.js";
import { TfjsEngine } from "../tfjs_engine.js";
import { tf } from "../tfjs.js";

const NODES = [
  { op: "matmul", args: [0, 1], shape: [2] },
  { op: "scale", args: [2], shape: [2], attrs: { c: "3" } },
  { op: "gather0", args: [0], shape: [3, 2], attrs: { key: "r" } },
  { op: "mask", args: [4], shape: [3, 2], attrs: { key: "m" } },
  { op: "linear", args: [0, 1, 2], shape: [2] },
  { op: "log", args: [1], shape: [2] }, // fails at -1: a request that ends early
];

function request(id, nodes) {
  const ones = (n) => new Array(n).fill("1");
  return {
    id, carrier: "float",
    case: { inputs: [{ shape: [2, 2] }, { shape: [2] }], values: [["1", "2", "3", "4"], ["1", "-1"]], nodes,
            data: { r: { indices: [1, 1, 0] }, m: { shape: [3, 2], values: ["1", "0", "1", "0", "1", "0"] } } },
    passes: [{ dense: [ones(4), ones(2), ones(2), ones(2), ones(6), ones(6), ones(2), ones(2)].slice(0, nodes.length + 2) },
             { single: { output: 6, seed: ["1", "2"] } }],
  };
}

it("frees every tensor of a request, answered or failed", () => {
  const engine = new TfjsEngine();
  const before = tf.memory().numTensors;
  for (let i = 0; i < 20; i++) {
    const ok = answer(engine, request(i, NODES.slice(0, 5)));
    assert.deepEqual(ok.passes[1].gradients[0].values, ["2", "-2", "4", "-4"]); // ct·xᵀ along both paths
    assert.equal(answer(engine, request(i, NODES)).error.position, 7);
  }
  assert.equal(tf.memory().numTensors, before);
});
