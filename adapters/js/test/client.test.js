// The protocol library: answers, the serve loop, malformed requests, and the exchange end to
// end with a child process (the twin of tests/python/test_tapecheck_engine.py).

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";

import {
  DataTensor, DomainError, Engine, Fraction, ProtocolError, Unsupported, answer, hello, serve, shapeSize,
} from "../tapecheck_engine.js";
import { EngineProcess, REPO, context, dense, gradients, node, request, single } from "./driver.js";

const plus = (a, b) => (typeof a === "number" ? a + b : a.add(b));

/** A stub engine over {shape, values} records that records what the library gives it. */
class ListEngine extends Engine {
  profile = {
    name: "stub",
    ops: { rational: ["add", "fail", "nope", "scale", "const", "mask", "gather0", "matmul", "sum_axis", "crash", "short"],
           double: ["add"] },
  };

  constructor({ gradients = null, passError = null } = {}) {
    super();
    Object.assign(this, { applied: [], seeds: [], released: [], gradients, passError });
  }

  leaf(carrier, shape, values) {
    return { shape, values: [...values] };
  }

  apply(op, args, attrs, shape, data) {
    this.applied.push({ op, attrs, shape, data });
    if (op === "fail") throw new DomainError("divisor contains 0");
    if (op === "nope") throw new Unsupported("nope{flavour}");
    if (op === "crash") throw new RangeError("engine bug");
    if (op === "add") return { shape, values: args[0].values.map((a, i) => plus(a, args[1].values[i])) };
    if (op === "short") return { shape, values: [new Fraction(1)] }; // one value, whatever the shape
    return { shape, values: new Array(shapeSize(shape)).fill(new Fraction(0)) };
  }

  values(tensor) {
    return tensor.values;
  }

  backward(tensors, seeds) {
    this.seeds.push(seeds);
    if (this.passError && this.seeds.length === 1) throw new DomainError(this.passError);
    if (this.gradients !== null) return this.gradients;
    return tensors.map((_, p) => seeds.get(p) ?? null);
  }

  release(tensors) {
    this.released.push(tensors.length);
  }
}

function stubRequest(nodes, { passes = [], carrier = "rational", inputs = [[2], [2]],
                              values = [["1", "-1/2"], ["3", "1/4"]], data = null } = {}) {
  const document = { tapecheck: 1, inputs: inputs.map((shape) => ({ shape })), nodes, values };
  if (data) document.data = data;
  return { id: 9, carrier, case: document, passes };
}

const ADD = { op: "add", args: [0, 1], shape: [2] };
const strings = (seeds) => new Map([...seeds].map(([p, v]) => [p, v.map(String)]));

describe("answer", () => {
  it("gives the context in position order", () => {
    assert.deepEqual(answer(new ListEngine(), stubRequest([ADD])), {
      id: 9,
      context: [{ shape: [2], values: ["1", "-1/2"] }, { shape: [2], values: ["3", "1/4"] },
                { shape: [2], values: ["4", "-1/4"] }],
      passes: [],
    });
  });

  it("seeds every position for a dense pass and the output for a single one", () => {
    const engine = new ListEngine();
    const out = answer(engine, stubRequest([ADD], { passes: [dense(["1", "2"], ["0", "0"], ["1/2", "-1"]), single(2, ["5", "6"])] }));
    assert.deepEqual(strings(engine.seeds[0]), new Map([[0, ["1", "2"]], [1, ["0", "0"]], [2, ["1/2", "-1"]]]));
    assert.deepEqual(strings(engine.seeds[1]), new Map([[2, ["5", "6"]]]));
    assert.deepEqual(out.passes[1].gradients, [{ shape: [2], values: ["0", "0"] }, { shape: [2], values: ["0", "0"] },
                                               { shape: [2], values: ["5", "6"] }]);
    assert.ok(!("programs_run" in out.passes[1]));
  });

  it("reports programs_run only when the engine counts", () => {
    const engine = new ListEngine({ gradients: { gradients: [null, null, [1n, 1n]], programsRun: 1 } });
    const out = answer(engine, stubRequest([ADD], { passes: [single(2, ["1", "1"])] }));
    assert.equal(out.passes[0].programs_run, 1);
  });

  it("writes null gradients as the carrier's zeros", () => {
    const out = answer(new ListEngine({ gradients: [null, undefined, null] }),
                       stubRequest([ADD], { passes: [single(2, ["1", "1"])], carrier: "double" }));
    assert.deepEqual(out.passes[0].gradients[0], { shape: [2], values: ["0", "0"] });
    assert.deepEqual(out.passes[0].gradients[1], { shape: [2], values: ["0", "0"] });
  });

  it("names the failing node's position, counting inputs, and runs nothing after it", () => {
    const engine = new ListEngine();
    const out = answer(engine, stubRequest([ADD, { op: "fail", args: [2, 0], shape: [2] }, ADD], { passes: [dense()] }));
    assert.deepEqual(out, { id: 9, error: { position: 3, message: "divisor contains 0" } });
    assert.deepEqual(engine.applied.map((a) => a.op), ["add", "fail"]);
    assert.deepEqual(engine.seeds, []);
    assert.deepEqual(engine.released, [3]); // the tensors built before the failure are released
  });

  it("answers unsupported when the engine throws Unsupported", () => {
    const out = answer(new ListEngine(), stubRequest([ADD, { op: "nope", args: [0], shape: [2] }]));
    assert.deepEqual(out, { id: 9, unsupported: "nope{flavour}" });
  });

  it("answers unsupported for an op outside the profile without running the engine", () => {
    const engine = new ListEngine();
    assert.deepEqual(answer(engine, stubRequest([ADD, { op: "exp", args: [0], shape: [2] }])), { id: 9, unsupported: "exp" });
    assert.deepEqual(engine.applied, []);
    const scale = { op: "scale", args: [0], shape: [2], attrs: { c: "2" } };
    assert.deepEqual(answer(engine, stubRequest([scale], { carrier: "double" })), { id: 9, unsupported: "scale" }); // per carrier
  });

  it("fails a pass alone when backward throws DomainError", () => {
    const engine = new ListEngine({ passError: "no gradient today" });
    const out = answer(engine, stubRequest([ADD], { passes: [single(2, ["1", "1"]), single(0, ["1", "1"])] }));
    assert.deepEqual(out.passes[0], { error: { message: "no gradient today" } });
    assert.ok("gradients" in out.passes[1]);
    assert.ok("context" in out);
  });

  it("lets other exceptions through, after releasing the tensors", () => {
    const engine = new ListEngine();
    assert.throws(() => answer(engine, stubRequest([{ op: "crash", args: [0], shape: [2] }])), RangeError);
    assert.deepEqual(engine.released, [2]);
  });

  it("decodes attributes and data", () => {
    const engine = new ListEngine();
    const nodes = [
      { op: "scale", args: [0], shape: [2], attrs: { c: "-1/2" } },
      { op: "const", shape: [2], attrs: { shape: [2], values: ["0.25", "3"] } },
      { op: "mask", args: [0], shape: [2], attrs: { key: "m" } },
      { op: "gather0", args: [0], shape: [3], attrs: { key: "rows" } },
    ];
    answer(engine, stubRequest(nodes, { data: { m: { shape: [2], values: ["1", "1/3"] }, rows: { indices: [1, 0, 1] } } }));
    const [scale, constant, mask, gather] = engine.applied;
    assert.equal(scale.attrs.c.toString(), "-1/2");
    assert.deepEqual(constant.attrs.shape, [2]);
    assert.deepEqual(constant.attrs.values.map(String), ["1/4", "3"]);
    assert.ok(mask.data.m instanceof DataTensor);
    assert.deepEqual(mask.data.m.shape, [2]);
    assert.deepEqual(mask.data.m.values.map(String), ["1", "1/3"]);
    assert.deepEqual(gather.data.rows, [1, 0, 1]);
  });

  it("infers missing node shapes", () => {
    const engine = new ListEngine();
    const nodes = [{ op: "matmul", args: [0, 1] }, { op: "sum_axis", args: [2], attrs: { axis: 0 } },
                   { op: "gather0", args: [1], attrs: { key: "rows" } }];
    const out = answer(engine, stubRequest(nodes, { inputs: [[2, 3], [3, 4]], values: [Array(6).fill("0"), Array(12).fill("0")],
                                                    data: { rows: { indices: [2, 2] } } }));
    assert.deepEqual(engine.applied.map((a) => a.shape), [[2, 4], [4], [2, 4]]);
    assert.deepEqual(out.context.map((t) => t.shape), [[2, 3], [3, 4], [2, 4], [4], [2, 4]]);
  });

  it("turns a tensor of the wrong size into a rank-1 difference, not a broken line", () => {
    const out = answer(new ListEngine(), stubRequest([{ op: "short", args: [0], shape: [2] }]));
    assert.deepEqual(out.context[2], { shape: [1], values: ["1"] });
  });

  it("names the policy in the hello only when set", () => {
    const engine = new ListEngine();
    assert.deepEqual(hello(engine), { tapecheck_engine: 1, profile: engine.profile });
    engine.policy = "values";
    assert.equal(hello(engine).policy, "values");
  });

  it("refuses malformed requests with a ProtocolError", () => {
    const engine = new ListEngine();
    const bad = [
      [{ ...stubRequest([ADD]), id: "9" }, /"id" must be an integer/],
      [{ ...stubRequest([ADD]), carrier: "interval" }, /unknown carrier 'interval'/],
      [stubRequest([ADD], { values: [["1", "x"], ["3", "1/4"]] }), /'x' is not a value/],
      [stubRequest([ADD], { values: [["1", "2"]] }), /2 inputs but 1 value lists/],
      [stubRequest([ADD], { passes: [{ sparse: [] }] }), /a pass must be/],
      [stubRequest([ADD], { carrier: "double", values: [["1", 2], ["3", "4"]] }), /a value must be a string/],
    ];
    for (const [body, message] of bad) assert.throws(() => answer(engine, body), (e) => e instanceof ProtocolError && message.test(e.message));
  });
});

/** serve() on in-memory streams: the output lines. */
async function serveLines(engine, chunks) {
  const written = [];
  await serve(engine, { input: Readable.from(chunks), output: { write: (text) => written.push(text) } });
  return written.join("").split("\n");
}

describe("serve", () => {
  it("says hello, then answers one line per request in order", async () => {
    const requests = [1, 2, 3].map((id) => ({ ...stubRequest([ADD], { passes: [single(2, ["1", "1"])] }), id }));
    const text = requests.map((r) => JSON.stringify(r)).join("\n") + "\n\n";
    // Chunks that split lines anywhere, as a pipe may deliver them.
    const chunks = [text.slice(0, 7), text.slice(7, 300), text.slice(300)];
    const lines = await serveLines(new ListEngine(), chunks);
    assert.equal(lines.at(-1), "");
    assert.equal(JSON.parse(lines[0]).tapecheck_engine, 1);
    assert.deepEqual(lines.slice(1, -1).map((line) => JSON.parse(line).id), [1, 2, 3]);
    assert.ok(lines.every((line) => !line.includes(" ")), "compact JSON");
  });

  it("answers a last line without its newline", async () => {
    const lines = await serveLines(new ListEngine(), [JSON.stringify(stubRequest([ADD]))]);
    assert.equal(JSON.parse(lines[1]).id, 9);
  });

  it("rejects on a line that is not JSON, naming it", async () => {
    const text = JSON.stringify(stubRequest([ADD])) + "\n{oops\n";
    await assert.rejects(serveLines(new ListEngine(), [text]), (e) => e instanceof ProtocolError && /request line 2: not JSON/.test(e.message));
  });
});

// An engine in a child process, as tapecheck runs it: standard output is the protocol's alone.
const CHATTY = `
  import { Engine, serve } from "./adapters/js/tapecheck_engine.js";
  class Chatty extends Engine {
    profile = { name: "chatty" };
    leaf(carrier, shape, values) { console.log("making a leaf"); process.stdout.write("raw write\\n"); return values; }
    apply(op) { throw new TypeError("engine bug in " + op); }
    values(tensor) { return tensor; }
    backward(tensors) { return tensors.map(() => null); }
  }
  serve(new Chatty());
`;

function runChatty(input) {
  return spawnSync(process.execPath, ["--input-type=module", "-e", CHATTY], { cwd: REPO, input, encoding: "utf8", timeout: 60_000 });
}

describe("a client in a child process", () => {
  it("sends the engine's prints to standard error and exits cleanly at end of input", () => {
    const body = stubRequest([], { passes: [single(0, ["1", "1"])], inputs: [[2]], values: [["1", "2"]] });
    const done = runChatty(JSON.stringify(body) + "\n");
    assert.equal(done.status, 0, done.stderr);
    const [helloLine, answerLine, ...rest] = done.stdout.split("\n");
    assert.deepEqual(JSON.parse(helloLine).profile, { name: "chatty" });
    assert.equal(JSON.parse(answerLine).id, 9);
    assert.deepEqual(rest, [""]);
    assert.match(done.stderr, /making a leaf/);
    assert.match(done.stderr, /raw write/);
  });

  it("exits with status 1 on an engine bug, the error on the last line of standard error", () => {
    const done = runChatty(JSON.stringify(stubRequest([ADD])) + "\n");
    assert.equal(done.status, 1);
    assert.equal(done.stdout.split("\n").length, 2); // the hello only
    assert.match(done.stderr, /at Chatty\.apply/); // the stack, for the engine's author
    assert.equal(done.stderr.trimEnd().split("\n").at(-1), "TypeError: engine bug in add");
  });

  it("exits with status 2 on a malformed request, naming the line", () => {
    const done = runChatty(JSON.stringify(stubRequest([])) + "\nnot json\n");
    assert.equal(done.status, 2);
    assert.equal(done.stdout.split("\n").length, 3); // the hello and the first answer
    assert.match(done.stderr.trimEnd().split("\n").at(-1), /^tapecheck_engine: request line 2: not JSON/);
  });
});

describe("examples/js/tiny_engine.js end to end", () => {
  let engine;
  before(async () => {
    engine = new EngineProcess([process.execPath, "examples/js/tiny_engine.js"]);
    engine.hello = await engine.readJson();
  });
  after(async () => {
    const { code } = await engine.close();
    assert.equal(code, 0);
  });

  it("announces its profile and policy", () => {
    assert.equal(engine.hello.tapecheck_engine, 1);
    assert.equal(engine.hello.policy, "values");
    assert.deepEqual(engine.hello.profile.carriers, ["rational", "double"]);
  });

  it("computes exact gradients on rationals, seeded per pass", async () => {
    const nodes = [node("relu", [0], [2]), node("mul", [1, 0], [2]), node("sum", [2], [])];
    const out = await engine.ask(request("rational", [[2]], [["-3/2", "2"]], nodes,
                                         [dense(["0", "0"], ["0", "0"], ["0", "0"], ["1"]), single(3, ["1/3"])]));
    assert.deepEqual(context(out), [["-3/2", "2"], ["0", "2"], ["0", "4"], ["4"]]);
    assert.deepEqual(gradients(out, 0), [["0", "4"], ["-3/2", "2"], ["1", "1"], ["1"]]);
    assert.deepEqual(gradients(out, 1)[0], ["0", "4/3"]);
  });

  it("answers batched requests in order, on both carriers", async () => {
    const ids = engine.send(
      request("double", [[1]], [["0.1"]], [node("add", [0, 0], [1])], [single(1, ["1"])]),
      request("double", [[1]], [["1"]], [node("exp", [0], [1])], []),
      request("rational", [[1]], [["-0"]], [node("relu", [0], [1])], [single(1, ["-2"])]),
    );
    const answers = [await engine.readJson(), await engine.readJson(), await engine.readJson()];
    assert.deepEqual(answers.map((a) => a.id), ids);
    assert.deepEqual(context(answers[0])[1], ["0.2"]);
    assert.deepEqual(gradients(answers[0])[0], ["2"]);
    assert.deepEqual(answers[1], { id: ids[1], unsupported: "exp" });
    assert.deepEqual(gradients(answers[2]), [["0"], ["-2"]]);
  });
});
