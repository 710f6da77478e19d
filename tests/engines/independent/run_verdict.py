#!/usr/bin/python3
"""Run the engine verdict (`tapecheck run`, docs/semantics.md §3.9) on the independent engine
(tests/engines/independent/engine.py) and on each of its planted bugs, and print a table.

    /usr/bin/python3 tests/engines/independent/run_verdict.py [--tapecheck build/tapecheck] [options]

Expectations: the correct engine passes (exit 0) at seeds 1, 2, 3; each bug fails (exit 1) at seed 1.
With --strict, each bug must also fail on every carrier where its op exists (double and float for the
transcendental bugs; rational, double and float for the others): a carrier that misses it is an ESCAPE.
Exits non-zero if any expectation fails. Standard library only.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ENGINE = "tests/engines/independent/engine.py"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
TAPECHECK = os.path.join(REPO, "build", "tapecheck")  # --tapecheck
PY = "/usr/bin/python3"

# Bugs whose op exists only on IEEE carriers (transcendental ops); the others exist on rational too.
IEEE_ONLY = {"tanh_from_x", "sigmoid_sign", "softmax_no_sum", "log_deriv", "exp_deriv", "sqrt_deriv",
             "softplus_deriv", "log_softmax_naive", "softplus_naive", "sigmoid_naive"}

FAILED_RE = re.compile(r"^(\S+) failed on (\S+) with engine .*?\(shrunk in (\d+) steps? from (\d+) to (\d+) nodes?\)")
FAILED_ANY_RE = re.compile(r"^(\S+) failed on (\S+) with engine ")
SUMMARY_RE = re.compile(r"seed \d+: (.*)$")


def bug_names():
    out = subprocess.run([PY, ENGINE, "--list-bugs"], capture_output=True, text=True, check=True).stdout
    return [line.split(":", 1)[0] for line in out.splitlines() if line.strip()]


def run_one(bug, seed, cases, carrier, keep_dir):
    cmd_engine = f"{PY} {ENGINE}" + (f" --bug {bug}" if bug else "")
    save = tempfile.mkdtemp(prefix="tc-indep-")
    args = [TAPECHECK, "run", "--engine-cmd", cmd_engine, "--cases", str(cases), "--seed", str(seed),
            "--save-failures", save, "--quiet"]
    if carrier:
        args += ["--carrier", carrier]
    start = time.monotonic()
    proc = subprocess.run(args, capture_output=True, text=True, cwd=REPO)
    seconds = time.monotonic() - start
    text = proc.stdout + proc.stderr
    rows = []
    for line in text.splitlines():
        m = FAILED_RE.match(line)
        if m:
            rows.append((m.group(1), m.group(2), int(m.group(5)), int(m.group(4))))
            continue
        m = FAILED_ANY_RE.match(line)
        if m:
            rows.append((m.group(1), m.group(2), None, None))
    summary = ""
    for line in text.splitlines():
        m = SUMMARY_RE.search(line)
        if m:
            summary = m.group(1)
    if keep_dir:
        name = f"{bug or 'correct'}-seed{seed}"
        dest = os.path.join(keep_dir, name)
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(save, dest)
        with open(os.path.join(dest, "output.txt"), "w") as f:
            f.write(text)
    shutil.rmtree(save, ignore_errors=True)
    return {"bug": bug, "seed": seed, "exit": proc.returncode, "rows": rows, "seconds": seconds,
            "summary": summary, "text": text}


def carriers_caught(rows):
    return {carrier for _, carrier, _, _ in rows}


def main():
    global TAPECHECK
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--seeds", default="1,2,3", help="seeds for the correct engine")
    ap.add_argument("--bug-seed", type=int, default=1)
    ap.add_argument("--bugs", default="all", help="comma-separated bug names, 'all' or 'none'")
    ap.add_argument("--carrier", default=None, help="restrict to one carrier (default: the full run)")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--tapecheck", default=TAPECHECK, help="the tapecheck binary (default: build/tapecheck)")
    ap.add_argument("--strict", action="store_true",
                    help="a bug must be caught on double and float (and rational unless IEEE-only)")
    ap.add_argument("--keep", default=None, help="directory to keep each run's output and saved failures")
    ap.add_argument("--verbose", action="store_true", help="print every failing row of each run")
    opts = ap.parse_args()
    TAPECHECK = os.path.abspath(opts.tapecheck)
    os.chdir(REPO)  # the engine command and its paths are the repository's
    if opts.keep:
        os.makedirs(opts.keep, exist_ok=True)

    jobs = [(None, int(s)) for s in opts.seeds.split(",") if s]
    names = bug_names()
    if opts.bugs == "none":
        chosen = []
    elif opts.bugs == "all":
        chosen = names
    else:
        chosen = opts.bugs.split(",")
        unknown = [b for b in chosen if b not in names]
        if unknown:
            sys.exit(f"unknown bugs: {unknown}")
    jobs += [(b, opts.bug_seed) for b in chosen]

    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        results = list(pool.map(lambda j: run_one(j[0], j[1], opts.cases, opts.carrier, opts.keep), jobs))

    problems = []
    header = f"{'engine/bug':<20} {'seed':>4} {'exit':>4} {'dbl':>3} {'flt':>3} {'rat':>3}  {'nodes':>5} {'sec':>6}  failing rows"
    print(header)
    print("-" * len(header))
    for r in results:
        name = r["bug"] or "correct"
        caught = carriers_caught(r["rows"])
        nodes = [n for _, _, n, _ in r["rows"] if n is not None]
        node_text = str(min(nodes)) if nodes else "-"
        marks = []
        for carrier in ("double", "float", "rational"):
            if carrier in caught:
                marks.append("yes")
            elif r["bug"] and (carrier != "rational" or r["bug"] not in IEEE_ONLY):
                marks.append("NO")
            else:
                marks.append("-")
        first = r["rows"][0] if r["rows"] else None
        row_text = (f"{first[0]}/{first[1]} ({first[2]} nodes)" + (f" +{len(r['rows']) - 1} more" if len(r["rows"]) > 1 else "")
                    if first else r["summary"])
        print(f"{name:<20} {r['seed']:>4} {r['exit']:>4} {marks[0]:>3} {marks[1]:>3} {marks[2]:>3}  {node_text:>5} {r['seconds']:>6.1f}  {row_text}")
        if opts.verbose:
            for prop, carrier, n, a in r["rows"]:
                print(f"{'':<28}{prop} on {carrier}: shrunk from {a} to {n} nodes")
        if r["bug"] is None:
            if r["exit"] != 0:
                problems.append(f"FALSE ALARM: correct engine, seed {r['seed']}, exit {r['exit']}: "
                                + "; ".join(f"{p} on {c}" for p, c, _, _ in r["rows"]))
        else:
            if r["exit"] != 1:
                problems.append(f"ESCAPE: bug {name}, seed {r['seed']}, exit {r['exit']} ({r['summary']})")
            elif opts.strict and not opts.carrier:
                want = {"double", "float"} if r["bug"] in IEEE_ONLY else {"double", "float", "rational"}
                missing = sorted(want - caught)
                if missing:
                    problems.append(f"ESCAPE on {', '.join(missing)}: bug {name}, seed {r['seed']}")
        if r["exit"] not in (0, 1):
            tail = r["text"].strip().splitlines()[-3:]
            problems.append(f"{name} seed {r['seed']}: exit {r['exit']}: " + " | ".join(tail))
    print()
    print(f"total {sum(r['seconds'] for r in results):.1f} s of runs")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print("all expectations met")


if __name__ == "__main__":
    main()
