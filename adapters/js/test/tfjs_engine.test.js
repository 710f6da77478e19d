// adapters/js/tfjs_engine.js driven as a child process, exactly as tapecheck drives it.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { EngineProcess, context, dense, gradients, node, request, single } from "./driver.js";

const ENGINE = [process.execPath, "adapters/js/tfjs_engine.js"];

function withEngine(env = {}) {
  const state = {};
  before(async () => {
    state.engine = new EngineProcess(ENGINE, env);
    state.hello = await state.engine.readJson();
  });
  after(async () => {
    const { code } = await state.engine.close();
    assert.equal(code, 0, state.engine.stderr);
  });
  return state;
}

describe("the TF.js engine", () => {
  const state = withEngine();
  const ask = (body) => state.engine.ask(body);

  it("announces float only, the ops whose conventions it can declare, and its kinks", () => {
    const { tapecheck_engine: version, profile } = state.hello;
    assert.equal(version, 1);
    assert.match(profile.name, /^tfjs-core 4\.22\.\d+ \(cpu\)$/);
    assert.deepEqual(profile.carriers, ["float"]);
    for (const op of ["add", "matmul", "softmax_last", "gather0", "clamp", "const", "detach"]) assert.ok(profile.ops.includes(op), op);
    for (const op of ["abs", "relu", "max", "min", "opaque"]) assert.ok(!profile.ops.includes(op), op);
    assert.deepEqual(profile.kinks, { clamp: "pass" });
    assert.equal(profile.single_output, "ancestors");
    assert.equal(profile.zero_sign, "unspecified");
    assert.equal(state.engine.stderr, ""); // TF.js's advice to install tfjs-node is kept quiet
  });

  it("computes float32 values and TF.js's gradients", async () => {
    const nodes = [node("square", [0], [2]), node("mul", [1, 0], [2]), node("sum", [2], [])];
    const out = await ask(request("float", [[2]], [["0.5", "-3"]], nodes, [dense(["0", "0"], ["0", "0"], ["0", "0"], ["1"])]));
    assert.deepEqual(context(out), [["0.5", "-3"], ["0.25", "9"], ["0.125", "-27"], ["-26.875"]]);
    assert.deepEqual(gradients(out)[0], ["0.75", "27"]); // 3x², from x·2x + x·x
    const rounded = await ask(request("float", [[1]], [["0.1"]], [node("exp", [0], [1])], []));
    assert.deepEqual(context(rounded), [[String(Math.fround(0.1))], [String(Math.fround(Math.exp(Math.fround(0.1))))]]);
  });

  it("gives each position its own cotangent, seeds included, and nothing through const or detach", async () => {
    const nodes = [node("const", [], [2], { shape: [2], values: ["2", "3"] }), node("detach", [0], [2]),
                   node("mul", [1, 2], [2]), node("sum", [3], [])];
    const out = await ask(request("float", [[2]], [["5", "7"]], nodes,
                                  [dense(["1", "1"], ["0", "0"], ["0", "0"], ["0", "0"], ["1"]), single(4, ["1"])]));
    assert.deepEqual(gradients(out, 0), [["1", "1"], ["5", "7"], ["2", "3"], ["1", "1"], ["1"]]);
    assert.deepEqual(gradients(out, 1), [["0", "0"], ["5", "7"], ["2", "3"], ["1", "1"], ["1"]]);
  });

  it("runs only the output's ancestors in a single-output pass", async () => {
    // Off the path, mul(x, x) at x = inf would send 0·inf = NaN to x in a dense pass.
    const nodes = [node("mul", [0, 0], [1]), node("neg", [0], [1])];
    const out = await ask(request("float", [[1]], [["inf"]], nodes, [single(2, ["1"]), dense(["0"], ["0"], ["1"])]));
    assert.deepEqual(gradients(out, 0), [["-1"], ["0"], ["1"]]);
    assert.deepEqual(gradients(out, 1)[0], ["nan"]);
  });

  it("handles matmul, broadcast, gather0 with repeated rows, slices and concatenation", async () => {
    const nodes = [
      node("matmul", [0, 1], [2]), // [2,2] x [2]
      node("broadcast", [2], [3, 2], { shape: [3, 2] }),
      node("gather0", [0], [3, 2], { key: "rows" }),
      node("concat0", [3, 4], [6, 2]),
      node("slice0", [5], [2, 2], { start: 3, len: 2 }),
    ];
    const out = await ask(request("float", [[2, 2], [2]], [["1", "2", "3", "4"], ["1", "-1"]], nodes,
                                  [single(6, ["1", "2", "3", "4"])], { rows: { indices: [1, 1, 0] } }));
    assert.deepEqual(context(out)[2], ["-1", "-1"]);
    assert.deepEqual(context(out)[6], ["3", "4", "3", "4"]); // rows 3, 4 of [b; b; b; x1; x1; x0]
    assert.deepEqual(gradients(out)[0], ["0", "0", "4", "6"]); // both gathered copies of row 1
    assert.deepEqual(gradients(out)[1], ["0", "0"]);
  });

  it("passes ct at a clamp bound and answers clamp with lo = hi unsupported", async () => {
    const clamp = (lo, hi) => node("clamp", [0], [3], { lo, hi });
    const out = await ask(request("float", [[3]], [["0", "0.5", "2"]], [clamp("0", "1")], [single(1, ["3", "3", "3"])]));
    assert.deepEqual(gradients(out)[0], ["3", "3", "0"]);
    assert.deepEqual(await ask(request("float", [[3]], [["0", "0.5", "2"]], [clamp("1", "1")], [])), { id: state.engine.nextId - 1, unsupported: "clamp{lo=hi}" });
  });

  it("answers ops outside its profile unsupported", async () => {
    const out = await ask(request("float", [[1]], [["-1"]], [node("abs", [0], [1])], []));
    assert.equal(out.unsupported, "abs");
  });

  it("fails log at a value <= 0 or NaN, naming the node", async () => {
    const nodes = [node("exp", [0], [2]), node("log", [0], [2])];
    const out = await ask(request("float", [[2]], [["1", "-0"]], nodes, [single(2, ["1", "1"])]));
    assert.deepEqual(out.error, { position: 2, message: "input contains values <= 0 or NaN" });
  });

  it("keeps IEEE specials and the sign of zero in values and seeds", async () => {
    const out = await ask(request("float", [[4]], [["nan", "-inf", "-0", "1e-45"]], [node("neg", [0], [4])],
                                  [single(1, ["-0", "nan", "inf", "1"])]));
    assert.deepEqual(context(out)[1], ["nan", "inf", "0", String(-(2 ** -149))]);
    assert.deepEqual(gradients(out)[0], ["0", "nan", "-inf", "-1"]);
  });

  it("keeps answering after a request it cannot run", async () => {
    const out = await ask(request("float", [[1]], [["2"]], [node("sqrt", [0], [1])], [single(1, ["1"])]));
    assert.deepEqual(context(out)[1], [String(Math.fround(Math.SQRT2))]);
  });
});

describe("the TF.js engine with a planted gradient", () => {
  const state = withEngine({ TAPECHECK_TFJS_PLANT: "square-grad" });

  it("gives dy·x for square instead of dy·2x", async () => {
    const out = await state.engine.ask(request("float", [[1]], [["3"]], [node("square", [0], [1])], [single(1, ["1"])]));
    assert.deepEqual(gradients(out)[0], ["3"]);
  });
});

describe("the TF.js engine with every op", () => {
  const state = withEngine({ TAPECHECK_TFJS_ALL_OPS: "1" });

  it("puts relu, max, min and abs back, with their measured kinks", async () => {
    const { profile } = state.hello;
    for (const op of ["abs", "relu", "max", "min"]) assert.ok(profile.ops.includes(op), op);
    assert.deepEqual(profile.kinks, { clamp: "pass", relu: "zero", max: "first", min: "first" });
    const out = await state.engine.ask(request("float", [[2], [2]], [["2", "0"], ["2", "1"]], [node("max", [0, 1], [2])], [single(2, ["3", "3"])]));
    assert.deepEqual(gradients(out).slice(0, 2), [["3", "0"], ["0", "3"]]); // a tie goes to the first argument
  });
});
