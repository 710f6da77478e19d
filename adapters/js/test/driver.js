// Drive an engine process as tapecheck does: read its hello, write request lines, read answer
// lines (the twin of tests/python/engine_driver.py). A read that waits too long fails the test
// instead of hanging it.

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const TIMEOUT_MS = 60_000;

/** One engine child process speaking the protocol on its standard input and output. */
export class EngineProcess {
  /** @param {string[]} argv the command, e.g. ["node", "adapters/js/tfjs_engine.js"] */
  constructor(argv, env = {}) {
    this.child = spawn(argv[0], argv.slice(1), { cwd: REPO, env: { ...process.env, ...env }, stdio: "pipe" });
    this.lines = [];
    this.waiting = null;
    this.ended = false;
    this.stderr = "";
    this.nextId = 1;
    let pending = "";
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk) => {
      pending += chunk;
      const parts = pending.split("\n");
      pending = parts.pop();
      for (const line of parts) this.#push(line);
    });
    this.child.stdout.on("end", () => {
      this.ended = true;
      this.#push(null);
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk) => { this.stderr += chunk; });
    this.exited = new Promise((resolve) => this.child.on("close", (code, signal) => resolve({ code, signal })));
  }

  #push(line) {
    this.lines.push(line);
    if (this.waiting) {
      const wake = this.waiting;
      this.waiting = null;
      wake();
    }
  }

  /** The next line of output (without its newline), or null at its end. */
  async readLine() {
    if (this.lines.length === 0) {
      let timer;
      await Promise.race([
        new Promise((resolve) => { this.waiting = resolve; }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no line from the engine in ${TIMEOUT_MS} ms; stderr: ${this.stderr.slice(-2000)}`)), TIMEOUT_MS);
        }),
      ]).finally(() => clearTimeout(timer));
    }
    return this.lines.length === 1 && this.lines[0] === null ? null : this.lines.shift();
  }

  async readJson() {
    const line = await this.readLine();
    if (line === null) throw new Error(`the engine's output ended; stderr: ${this.stderr.slice(-2000)}`);
    return JSON.parse(line);
  }

  /** Writes one request per body (its "id" added first, as tapecheck does); returns the ids. */
  send(...bodies) {
    const ids = [];
    let text = "";
    for (const body of bodies) {
      ids.push(this.nextId);
      text += JSON.stringify({ id: this.nextId, ...body }) + "\n";
      this.nextId += 1;
    }
    this.child.stdin.write(text);
    return ids;
  }

  /** One request and its answer, checked to carry the request's id. */
  async ask(body) {
    const [id] = this.send(body);
    const out = await this.readJson();
    if (out.id !== id) throw new Error(`answer ${JSON.stringify(out)} to request ${id}`);
    return out;
  }

  /** Closes the engine's standard input, as tapecheck does when done; resolves to its exit. */
  async close() {
    this.child.stdin.end();
    return this.exited;
  }
}

/** A request body: inputs as shapes, nodes as {op, args, attrs, shape} objects. */
export function request(carrier, inputs, values, nodes, passes, data = null) {
  const document = { tapecheck: 1, inputs: inputs.map((shape) => ({ shape })), nodes, values };
  if (data) document.data = data;
  return { carrier, case: document, passes };
}

/** A node of a case document; `attrs` are its attributes. */
export function node(op, args, shape, attrs = null) {
  const out = { op, args, shape };
  if (attrs) out.attrs = attrs;
  return out;
}

export const dense = (...seeds) => ({ dense: seeds });
export const single = (output, seed) => ({ single: { output, seed } });

/** The gradient value strings of one pass, one array per position. */
export const gradients = (answer, pass = 0) => answer.passes[pass].gradients.map((t) => t.values);
export const context = (answer) => answer.context.map((t) => t.values);
