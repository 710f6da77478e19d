/**
 * Speak tapecheck's engine protocol (docs/engine-protocol.md, version 1) for a JavaScript engine.
 *
 * tapecheck starts an engine as a child process, writes one JSON request per line to its standard
 * input and reads one JSON answer per line from its standard output. This module does all of that:
 * the hello, reading requests, decoding the case document and its values exactly per carrier, the
 * walk over the graph in position order, encoding the answer, and turning the engine's failures
 * into the protocol's answers. Node standard library only; the JavaScript twin of
 * adapters/python/tapecheck_engine.py.
 *
 * An engine author extends `Engine` (or writes any object with the same members) and calls
 * `serve(engine)`. The whole author-facing API:
 *
 *     engine.profile                  object: what the engine declares (docs/semantics.md §3.6); an
 *                                     absent key is the specification's choice: every carrier and
 *                                     op, single_output "support", zero_sign "spec", the spec's kinks
 *     engine.policy                   "bits", "values" or null (tapecheck's default, "bits")
 *     engine.carrier                  set by the library to the current request's carrier
 *     engine.leaf(carrier, shape, values)          -> a tensor gradients can be asked for
 *     engine.apply(op, args, attrs, shape, data)   -> the tensor of one node
 *     engine.values(tensor)                        -> its values, flat, row-major (any iterable)
 *     engine.backward(tensors, seeds)              -> one flat list (or null: zeros) per position
 *     engine.release(tensors)         optional: called once a request is answered (or failed) with
 *                                     every tensor built for it, to free them (TF.js needs it)
 *     throw new DomainError(message)  the forward (or a pass) fails on these values
 *     throw new Unsupported(op)       the engine cannot run this case after all
 *     serve(engine)                   run the protocol on stdin/stdout until end of input
 *
 * Values reach the engine decoded per carrier: `rational`/`rational-noeq` as `Fraction` (BigInt
 * numerator and denominator), `modp` as a BigInt residue modulo 2^61-1, `double` as a number,
 * `float` as a number holding the float32 nearest the exact decimal. `attrs` holds decoded values
 * (`c`, `lo`, `hi`, `const`'s `values`) and plain counts, shapes and names; `data` maps a key to a
 * `DataTensor` {shape, values} (read by `mask`) or to an array of row indices (read by `gather0`).
 * `tensors` is the array of every position's tensor (inputs, then nodes); `seeds` is a Map from a
 * position to its flat seed values: every position for a dense pass, only the output for a
 * single-output pass. `backward` may return `{gradients, programsRun}` for a single-output pass if
 * the engine counts the node programs it ran. Every position must be its own tensor, also a node
 * that changes nothing (reshape to the same shape) and the leaves that `const` and `detach` make:
 * each receives its own seed and cotangent. A case using an op that the profile does not list for
 * its carrier is answered `unsupported` without calling the engine. Every method is synchronous.
 *
 * Example (a hypothetical `mygrad` library):
 *
 *     import { Engine, Unsupported, serve } from "./adapters/js/tapecheck_engine.js";
 *     import * as mygrad from "mygrad";
 *
 *     class MyGrad extends Engine {
 *       profile = { name: "mygrad", carriers: ["double"], ops: ["add", "mul", "relu", "sum"],
 *                   single_output: "ancestors" };
 *       policy = "values";
 *       leaf(carrier, shape, values) { return mygrad.tensor(values, shape, { requiresGrad: true }); }
 *       apply(op, [a, b], attrs, shape, data) {
 *         switch (op) {
 *           case "add": return a.add(b);
 *           case "mul": return a.mul(b);
 *           case "relu": return a.relu();
 *           case "sum": return a.sum();
 *         }
 *         throw new Unsupported(op);
 *       }
 *       values(tensor) { return tensor.flat(); }
 *       backward(tensors, seeds) {
 *         const grads = mygrad.grad([...seeds.keys()].map((p) => tensors[p]), tensors, [...seeds.values()]);
 *         return grads.map((g) => (g === null ? null : g.flat()));
 *       }
 *     }
 *
 *     serve(new MyGrad());
 *
 * A DomainError's message is best the specification's reason (docs/semantics.md §1.10: "divisor
 * contains 0", "input contains 0", "input contains values <= 0 or NaN"); the position is the node
 * being built. Any other exception is an engine bug: the process writes its stack on standard
 * error, then a last line `Error: message` (the line tapecheck quotes), and exits with status 1;
 * tapecheck reports the case as a crash and restarts the engine. A request that breaks the
 * protocol (not JSON, a value outside the grammar) exits with status 2 and a line naming it.
 *
 * @module tapecheck_engine
 */

import { decoderOf, encoderOf, ValueError } from "./values.js";

export { CARRIERS, Fraction, MODP, ValueError, decodeValue, encodeValue } from "./values.js";

/** The protocol version this library speaks. */
export const PROTOCOL_VERSION = 1;

/**
 * The forward pass fails on these values (a division by zero on an exact carrier, log of a
 * non-positive value): thrown by `apply` it answers an error at that node; thrown by `backward`
 * it fails that pass only.
 */
export class DomainError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "DomainError";
  }
}

/**
 * The engine cannot run this case after all: `op` names the op (or attribute) it cannot express.
 * The case is counted unsupported, neither a pass nor a failure.
 */
export class Unsupported extends Error {
  /** @param {string} op */
  constructor(op) {
    super(`unsupported: ${op}`);
    this.name = "Unsupported";
    this.op = op;
  }
}

/** A request that breaks the protocol: tapecheck wrote something this library cannot read. */
export class ProtocolError extends Error {
  constructor(message) {
    super(message);
    this.name = "ProtocolError";
  }
}

/** A non-differentiable data tensor (read by `mask`): its shape and flat decoded values. */
export class DataTensor {
  /** @param {number[]} shape @param {Array} values */
  constructor(shape, values) {
    this.shape = shape;
    this.values = values;
  }
}

/** The base of an engine: override `leaf`, `apply`, `values` and `backward`. */
export class Engine {
  /** What the engine declares (docs/semantics.md §3.6). */
  profile = {};
  /** "bits", "values" or null (tapecheck's default). */
  policy = null;
  /** The current request's carrier, set by the library. */
  carrier = null;

  /** An input: a tensor of `shape` (row-major `values`) whose gradient can be asked for. */
  leaf(carrier, shape, values) {
    throw new Error("Engine.leaf is not implemented");
  }

  /** Node `op` (docs/semantics.md §2.1) on the argument tensors; `shape` is the node's. */
  apply(op, args, attrs, shape, data) {
    throw new Unsupported(op);
  }

  /** A tensor's values, flat and row-major, as carrier values. */
  values(tensor) {
    throw new Error("Engine.values is not implemented");
  }

  /**
   * Every position's gradient (the total cotangent reaching it, its own seed included) from
   * `seeds` (a Map from position to flat values): one flat list per position, or null for zeros.
   */
  backward(tensors, seeds) {
    throw new Error("Engine.backward is not implemented");
  }
}

/** The number of elements of a shape. */
export function shapeSize(shape) {
  let size = 1;
  for (const dim of shape) size *= dim;
  return size;
}

// ---------------------------------------------------------------------------------------------
// Shapes: a node's declared shape, or (when a document omits it) the op's shape rule.

const REDUCE_TO_SCALAR = new Set(["sum", "mean", "dot", "mse_loss"]);

/** The output shape of a node from its arguments' shapes (docs/semantics.md §2.1). */
function inferredShape(op, args, attrs, data) {
  if (REDUCE_TO_SCALAR.has(op)) return [];
  switch (op) {
    case "reshape":
    case "broadcast":
    case "const":
      return [...attrs.shape];
    case "sum_axis":
      return [...args[0].slice(0, attrs.axis), ...args[0].slice(attrs.axis + 1)];
    case "matmul":
      return [args[0][0], ...args[1].slice(1)];
    case "transpose":
      return [args[0][1], args[0][0]];
    case "linear":
      return [args[0][0]];
    case "concat0":
      return [args[0][0] + args[1][0], ...args[0].slice(1)];
    case "slice0":
      return [attrs.len, ...args[0].slice(1)];
    case "gather0":
      return [data[attrs.key].length, ...args[0].slice(1)];
    case "opaque":
      throw new Unsupported("opaque"); // its shape rule lives in tapecheck's registry
    default:
      return [...args[0]]; // elementwise ops keep their first argument's shape
  }
}

// ---------------------------------------------------------------------------------------------
// Requests and answers.

const VALUE_ATTRS = ["c", "lo", "hi"];

function decodeAttrs(attrs, decode) {
  if (!attrs) return {};
  const out = { ...attrs };
  for (const key of VALUE_ATTRS) if (key in out) out[key] = decode(out[key]);
  if ("values" in out) out.values = list(out.values, "const values").map(decode);
  return out;
}

function decodeData(data, decode) {
  const out = {};
  for (const [key, entry] of Object.entries(data ?? {})) {
    out[key] = "indices" in entry
      ? [...list(entry.indices, `data '${key}'`)]
      : new DataTensor([...list(entry.shape, `data '${key}' shape`)], list(entry.values, `data '${key}'`).map(decode));
  }
  return out;
}

function list(value, what) {
  if (!Array.isArray(value)) throw new ProtocolError(`${what} must be a list, got ${JSON.stringify(value)}`);
  return value;
}

/** The ops the profile lists for a carrier, or null when it lists none (every op). */
function supportedOps(profile, carrier) {
  const ops = profile?.ops;
  if (ops === undefined || ops === null) return null;
  if (Array.isArray(ops)) return new Set(ops);
  return new Set(ops[carrier] ?? []);
}

/** Ends a request early with a ready answer body (an error). */
class Failed extends Error {
  constructor(body) {
    super("failed");
    this.body = body;
  }
}

/**
 * Every position's tensor and shape, inputs first, nodes in creation order; `built` receives each
 * tensor as it is made, so that the caller can release them whatever happens.
 */
function forward(engine, carrier, document, decode, built) {
  const shapes = [];
  const inputs = list(document.inputs ?? [], "case inputs");
  const values = list(document.values ?? [], "case values");
  if (values.length !== inputs.length) {
    throw new ProtocolError(`the case has ${inputs.length} inputs but ${values.length} value lists`);
  }
  const data = decodeData(document.data, decode);
  try {
    inputs.forEach((input, i) => {
      const shape = [...list(input.shape, `input ${i} shape`)];
      built.push(engine.leaf(carrier, shape, list(values[i], `input ${i} values`).map(decode)));
      shapes.push(shape);
    });
    for (const node of list(document.nodes ?? [], "case nodes")) {
      const args = node.args ?? [];
      const attrs = decodeAttrs(node.attrs, decode);
      const shape = node.shape ?? inferredShape(node.op, args.map((a) => shapes[a]), attrs, data);
      built.push(engine.apply(node.op, args.map((a) => built[a]), attrs, shape, data));
      shapes.push(shape);
    }
  } catch (failure) {
    if (failure instanceof DomainError) {
      // At the position being built: inputs count, so it is the number built so far.
      throw new Failed({ error: { position: built.length, message: failure.message } });
    }
    throw failure;
  }
  return shapes;
}

function tensorJson(shape, texts) {
  // A wrong count would break the protocol for the whole run; a rank-1 shape of the count the
  // engine gave turns it into a difference at that position, which tapecheck shrinks.
  return { shape: texts.length === shapeSize(shape) ? shape : [texts.length], values: texts };
}

function encodeAll(values, encode) {
  const texts = [];
  for (const v of values) texts.push(encode(v));
  return texts;
}

function seedsOf(spec, decode) {
  const seeds = new Map();
  if (spec === null || typeof spec !== "object") throw new ProtocolError(`a pass must be an object, got ${JSON.stringify(spec)}`);
  if ("dense" in spec) {
    list(spec.dense, "dense seeds").forEach((values, p) => seeds.set(p, list(values, `dense seed ${p}`).map(decode)));
  } else if (spec.single) {
    seeds.set(spec.single.output, list(spec.single.seed, "single seed").map(decode));
  } else {
    throw new ProtocolError(`a pass must be {"dense": ...} or {"single": ...}, got ${JSON.stringify(spec)}`);
  }
  return seeds;
}

function runPass(engine, spec, tensors, shapes, carrier, decode, encode) {
  const seeds = seedsOf(spec, decode);
  let result;
  try {
    result = engine.backward(tensors, seeds);
  } catch (failure) {
    if (failure instanceof DomainError) return { error: { message: failure.message } };
    throw failure;
  }
  let programsRun;
  if (result !== null && !Array.isArray(result) && typeof result === "object" && "gradients" in result) {
    programsRun = result.programsRun;
    result = result.gradients;
  }
  // As many positions as the engine gave: a missing one is a difference tapecheck reports.
  const count = Math.min(shapes.length, result.length);
  const zero = encode(decode("0"));
  const gradients = [];
  for (let p = 0; p < count; p++) {
    const values = result[p];
    const texts = values === null || values === undefined
      ? new Array(shapeSize(shapes[p])).fill(zero)
      : encodeAll(values, encode);
    gradients.push(tensorJson(shapes[p], texts));
  }
  const out = { gradients };
  if (programsRun !== undefined && programsRun !== null) out.programs_run = programsRun;
  return out;
}

function checkRequest(request) {
  if (request === null || typeof request !== "object" || Array.isArray(request)) {
    throw new ProtocolError("a request must be a JSON object");
  }
  if (!Number.isInteger(request.id)) throw new ProtocolError(`"id" must be an integer, got ${JSON.stringify(request.id)}`);
  if (typeof request.carrier !== "string") throw new ProtocolError(`"carrier" must be a string`);
  if (request.case === null || typeof request.case !== "object") throw new ProtocolError(`"case" must be an object`);
}

/**
 * The answer to one request (a parsed JSON object), as an object ready for JSON.stringify.
 * @param {Engine} engine
 * @param {object} request
 * @returns {object}
 */
export function answer(engine, request) {
  checkRequest(request);
  const { id, carrier } = request;
  const document = request.case;
  let decode, encode;
  try {
    decode = decoderOf(carrier);
    encode = encoderOf(carrier);
  } catch (error) {
    throw new ProtocolError(error.message);
  }
  const supported = supportedOps(engine.profile ?? {}, carrier);
  if (supported !== null) {
    for (const node of document.nodes ?? []) {
      if (!supported.has(node.op)) return { id, unsupported: node.op };
    }
  }
  engine.carrier = carrier;
  const tensors = [];
  try {
    const shapes = forward(engine, carrier, document, decode, tensors);
    const context = shapes.map((shape, p) => tensorJson(shape, encodeAll(engine.values(tensors[p]), encode)));
    const passes = list(request.passes ?? [], "passes")
      .map((spec) => runPass(engine, spec, tensors, shapes, carrier, decode, encode));
    return { id, context, passes };
  } catch (failure) {
    if (failure instanceof Failed) return { id, ...failure.body };
    if (failure instanceof Unsupported) return { id, unsupported: failure.op };
    if (failure instanceof ValueError) throw new ProtocolError(failure.message);
    throw failure;
  } finally {
    if (typeof engine.release === "function") engine.release(tensors);
  }
}

/**
 * The engine's first line: protocol version, profile and (if it names one) its policy.
 * @param {Engine} engine
 */
export function hello(engine) {
  const out = { tapecheck_engine: PROTOCOL_VERSION, profile: engine.profile ?? {} };
  if (engine.policy !== undefined && engine.policy !== null) out.policy = engine.policy;
  return out;
}

/** The answer line to one request line. */
function answerLine(engine, line, lineNumber) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    throw new ProtocolError(`request line ${lineNumber}: not JSON (${error.message})`);
  }
  try {
    return JSON.stringify(answer(engine, request)) + "\n";
  } catch (error) {
    if (error instanceof ProtocolError) error.message = `request line ${lineNumber}: ${error.message}`;
    throw error;
  }
}

/**
 * Say hello, then answer each request line with one line, in order, until end of input.
 *
 * With the default streams, anything the engine writes to process.stdout (console.log included)
 * goes to standard error: standard output belongs to the protocol, and a stray line there would
 * break it. tapecheck quotes only the last line of standard error (when the engine crashes); to
 * debug an engine, log to a file. An engine bug or a malformed request then ends the process
 * (status 1 or 2, the reason on the last line of standard error). With streams given (`input` a
 * readable stream, `output` anything with write(string)), the returned promise rejects instead.
 *
 * @param {Engine} engine
 * @param {{input?: import("node:stream").Readable, output?: {write(text: string): unknown}}} [streams]
 * @returns {Promise<void>} resolved at end of input
 */
export function serve(engine, { input, output } = {}) {
  const standard = input === undefined && output === undefined;
  input ??= process.stdin;
  if (output === undefined) output = protocolStdout();
  const done = new Promise((resolve, reject) => {
    let pending = "";
    let lineNumber = 0;
    let stopped = false;
    const answerLines = (lines) => {
      for (const line of lines) {
        lineNumber += 1;
        if (line.trim() === "") continue;
        output.write(answerLine(engine, line, lineNumber));
      }
    };
    const stop = (error) => {
      stopped = true;
      input.removeAllListeners("data");
      input.pause();
      reject(error);
    };
    input.setEncoding?.("utf8");
    input.on("data", (chunk) => {
      if (stopped) return;
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop();
      try {
        answerLines(lines);
      } catch (error) {
        stop(error);
      }
    });
    input.on("end", () => {
      if (stopped) return;
      try {
        answerLines([pending]); // a last line without its newline is still a request
        resolve();
      } catch (error) {
        stop(error);
      }
    });
    input.on("error", (error) => stopped || stop(error));
    output.write(JSON.stringify(hello(engine)) + "\n");
  });
  return standard ? done.catch(exitOnFailure) : done;
}

/**
 * process.stdout's own write for the protocol, with process.stdout.write sent to standard error
 * from now on (console.log included). Writes to a pipe or a file are synchronous on Linux, so
 * each answer is out (flushed) before the next request is read.
 */
function protocolStdout() {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr);
  return { write };
}

function exitOnFailure(error) {
  if (error instanceof ProtocolError) {
    process.stderr.write(`tapecheck_engine: ${error.message}\n`);
    process.exit(2);
  }
  // The stack for the engine's author, then one line for tapecheck to quote.
  const summary = error instanceof Error ? `${error.name}: ${error.message}` : `thrown: ${String(error)}`;
  process.stderr.write(`${error?.stack ?? summary}\n${summary.split("\n")[0]}\n`);
  process.exit(1);
}
