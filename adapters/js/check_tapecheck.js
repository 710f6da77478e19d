// The TF.js engine under tapecheck, as the test command runs it:
//
//     node adapters/js/check_tapecheck.js TAPECHECK verdict SEED     the engine verdict must pass
//     node adapters/js/check_tapecheck.js TAPECHECK plant NAME SEED  a planted gradient must fail,
//                                                                  shrunk to at most 2 nodes
//
// TAPECHECK is the tapecheck binary; runs use 100 cases on float and write their
// counterexamples to a temporary directory. Exit status 0 when the check holds.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ENGINE = fileURLToPath(new URL("./tfjs_engine.js", import.meta.url));
// Where each plant is caught: square's on the exact domain, tanh's by the accuracy oracle.
const PLANT_RUNS = {
  "square-grad": ["--domain", "exact"],
  "tanh-grad": ["--property", "accuracy"],
};

function run(tapecheck, args, env = {}) {
  const dir = mkdtempSync(join(tmpdir(), "tapecheck-tfjs-"));
  try {
    const argv = ["run", "--engine-cmd", `${process.execPath} ${ENGINE}`, "--carrier", "float", "--cases", "100",
                  "--save-failures", join(dir, "failures"), ...args];
    const done = spawnSync(tapecheck, argv, { env: { ...process.env, ...env }, encoding: "utf8", timeout: 600_000 });
    return { status: done.status, output: `${done.stdout}${done.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function fail(message, output) {
  process.stderr.write(`${output}\ncheck_tapecheck: ${message}\n`);
  process.exit(1);
}

function verdict(tapecheck, seed) {
  const { status, output } = run(tapecheck, ["--seed", seed]);
  if (status !== 0 || !/: all passed$/m.test(output)) fail(`the engine verdict failed at seed ${seed} (status ${status})`, output);
  process.stdout.write(output.split("\n").filter((line) => /cases\/s/.test(line)).join("\n") + "\n");
}

function plant(tapecheck, name, seed) {
  const args = PLANT_RUNS[name];
  if (args === undefined) fail(`no plant '${name}' (${Object.keys(PLANT_RUNS).join(", ")})`, "");
  const { status, output } = run(tapecheck, [...args, "--seed", seed], { TAPECHECK_TFJS_PLANT: name });
  if (status === 0) fail(`the planted ${name} was not caught at seed ${seed}`, output);
  const sizes = [...output.matchAll(/shrunk in \d+ steps? from \d+ to (\d+) nodes?/g)].map((m) => Number(m[1]));
  if (sizes.length === 0) fail(`the planted ${name} failed without a shrunk counterexample`, output);
  if (Math.min(...sizes) > 2) fail(`the planted ${name} shrank to ${Math.min(...sizes)} nodes, more than 2`, output);
  process.stdout.write(`planted ${name}: caught, shrunk to ${Math.min(...sizes)} node(s)\n`);
}

const [tapecheck, check, ...rest] = process.argv.slice(2);
if (check === "verdict") verdict(tapecheck, rest[0] ?? "1");
else if (check === "plant") plant(tapecheck, rest[0], rest[1] ?? "1");
else fail("usage: check_tapecheck.js TAPECHECK verdict SEED | plant NAME SEED", "");
