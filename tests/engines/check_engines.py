"""The real engines tapecheck checks in CI through the engine protocol (docs/engine-protocol.md).

    check_engines.py TAPECHECK torch-verdict S PyTorch's engine verdict (the default run, no mode flags:
                                               docs/semantics.md §3.9) at seed S, 100 cases a row: must pass
    check_engines.py TAPECHECK torch-own-op    a user's torch.autograd.Function through the adapter's --ops hook
                                               (examples/python/my_torch_ops.py): passes the verdict, and with
                                               its planted bug fails accuracy on double and float, in <= 2 nodes
    check_engines.py TAPECHECK scalar          the scalar Python engine on rationals: must pass
    check_engines.py TAPECHECK scalar-bug      the scalar engine with --bug: must fail, shrunk to <= 3 nodes
    check_engines.py TAPECHECK misbehaving-hang
                                               the scalar engine hanging on tanh (tests/engines/misbehaving_engine.py):
                                               the default verdict fails, each failure the hang shrunk to a
                                               tanh node, the rows after the first from the first's case; one
                                               answer waited the whole --engine-timeout, and the engine was
                                               started once (the hung requests cancelled)
    check_engines.py TAPECHECK misbehaving-crash
                                               the same engine crashing (SIGSEGV) on tanh: each failure is the
                                               crash, quoting the engine's stderr, and the engine was started
                                               once (the Python client's worker crashed, not the engine)
    check_engines.py TAPECHECK misbehaving-error-position
                                               the scalar engine naming the position before the failing
                                               node in each domain error: the default verdict must fail
                                               domain_errors (and nothing else), on cases it drew with
                                               refusals of div, inv and log, NaN among the refused values
    check_engines.py TAPECHECK torch-survey [--update]
                                               PyTorch in survey mode on the default domain: the table
                                               of its conventions and rounding differences must be
                                               what this run prints (--update rewrites it)

ctest runs the verdict at seeds 1-5, and the survey in shards of rows (tapecheck run --shard I/N), a few
seconds each:

    check_engines.py TAPECHECK torch-survey-shard I N DIR    writes shard I's report to DIR
    check_engines.py TAPECHECK torch-survey-table N DIR      the survey table (docs/engines.md) from DIR's N reports

Run from anywhere; paths are the repository's. Exit status 0 when the check holds.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PYTHON = "/usr/bin/python3"  # Debian's interpreter, where python3-torch is installed
TORCH = f"{PYTHON} adapters/python/torch_engine.py"
SCALAR = f"{PYTHON} examples/python/scalar_engine.py"
CLASSES = ["signed zero", "within 1 ulp", "within 4 ulp", "within 16 ulp", "within 64 ulp", "within 256 ulp",
           "within 1024 ulp", "NaN", "other", "error"]
SURVEY_ARGS = ["--survey", "--cases", "1000", "--seed", "1"]
BEGIN, END = "<!-- torch-survey:begin -->", "<!-- torch-survey:end -->"


def tapecheck(binary, *args, save, report=None):
    """Runs tapecheck from the repository; returns (status, stdout, the --json report)."""
    report = Path(report) if report else Path(save) / "report.json"
    run = subprocess.run([binary, "run", *args, "--save-failures", str(save), "--json", str(report)], cwd=REPO,
                         capture_output=True, text=True)
    sys.stdout.write(run.stdout)
    sys.stderr.write(run.stderr)
    return run.returncode, run.stdout, json.loads(report.read_text()) if report.exists() else None


def expect(condition, message):
    if not condition:
        print(f"check_engines: {message}", file=sys.stderr)
        sys.exit(1)


def shard_args(shard):
    return ["--shard", f"{shard[0]}/{shard[1]}"] if shard else []


def torch_verdict(binary, save, seed):
    status, out, _ = tapecheck(binary, "--engine-cmd", TORCH, "--cases", "100", "--seed", str(seed), save=save)
    expect(status == 0, f"PyTorch fails its engine verdict at seed {seed}")
    expect("the engine verdict" in out, "the default run of PyTorch is not the engine verdict")


def torch_own_op(binary, save):
    own = TORCH + " --ops examples/python/my_torch_ops.py"
    status, _, _ = tapecheck(binary, "--engine-cmd", own, "--cases", "100", "--seed", "1", save=save)
    expect(status == 0, "PyTorch with the example's own tanh fails its engine verdict")
    os.environ["MY_TANH_BUG"] = "1"
    try:
        status, out, _ = tapecheck(binary, "--engine-cmd", own, "--cases", "100", "--seed", "1", save=save)
    finally:
        del os.environ["MY_TANH_BUG"]
    expect(status == 1, f"the example's planted tanh bug is not caught (exit status {status})")
    for carrier in ("double", "float"):
        found = re.search(rf"^accuracy failed on {carrier} .*from \d+ to (\d+) nodes", out, re.M)
        expect(found and int(found.group(1)) <= 2, f"the planted tanh bug is not caught on {carrier} in <= 2 nodes")


def scalar(binary, save):
    status, _, _ = tapecheck(binary, "--engine-cmd", SCALAR, "--carrier", "rational", "--cases", "500", "--seed", "1",
                             save=save)
    expect(status == 0, "the scalar engine fails on rationals")


def scalar_bug(binary, save):
    status, out, report = tapecheck(binary, "--engine-cmd", SCALAR + " --bug", "--carrier", "rational", "--cases", "500",
                                    "--seed", "1", save=save)
    expect(status == 1, f"the scalar engine with --bug does not fail (exit status {status})")
    saved = re.findall(r"^saved: (.*)$", out, re.M)
    expect(saved, "no counterexample was saved")
    for path in saved:
        nodes = len(json.loads((REPO / path).read_text()).get("nodes", []))
        expect(nodes <= 3, f"{path}: shrunk to {nodes} nodes, more than 3")
    print(f"check_engines: --bug fails {len(saved)} properties, every counterexample shrunk to <= 3 nodes")


def misbehaving(binary, save, how):
    """The default verdict of the scalar engine hanging or crashing on tanh (on double only)."""
    log, starts = Path(save) / "engine.log", Path(save) / "starts"
    engine = f"{PYTHON} tests/engines/misbehaving_engine.py --{how} tanh --starts {starts}"
    # A whole timeout far above the shortened ones (20x an answer's time), even on a busy machine.
    status, out, report = tapecheck(binary, "--engine-cmd", engine, "--seed", "1", "--engine-timeout", "30",
                                    "--engine-log", str(log), save=save)
    expect(status == 1, f"the engine that {how}s on tanh does not fail its verdict (exit status {status})")
    failed = [row for row in report["results"] if row["result"] == "fail"]
    expect(failed, "no row failed")
    expect(any(row["result"] == "pass" for row in report["results"]), "no other row was judged")
    reason = "no answer in " if how == "hang" else "engine crashed: signal 11 (Segmentation fault) (last"
    for row in failed:
        why = row["failure"]["why"]
        expect(why.startswith(reason), f"{row['property']} on {row['carrier']} failed otherwise: {why}")
        ops = [node["op"] for node in row["failure"]["case"].get("nodes", [])]
        expect(ops == ["tanh"], f"{row['property']} on {row['carrier']}: shrunk to {ops}, not to the tanh node")
    # The fault is shrunk once: every later row starts from the case the first shrank to.
    started = [row["failure"].get("shrink_started_from") for row in failed]
    expect(started[0] is None and all(started[1:]),
           f"the rows after the first did not start shrinking from its case: {started}")
    faults = re.findall(r"^# fault: (.*)$", log.read_text(), re.M)
    whole = [fault for fault in faults if fault.startswith("no answer in 30 s")]
    expect(len(whole) == (1 if how == "hang" else 0), f"{len(whole)} answers waited the whole timeout: {whole}")
    started = starts.read_text().split()
    expect(len(started) == 1, f"the engine was started {len(started)} times")
    print(f"check_engines: {len(failed)} rows failed on the {how}, {len(faults)} faults, "
          f"{len(whole)} whole timeout, {len(started)} start")


def misbehaving_error_position(binary, save):
    """The default verdict of an engine whose domain errors name the wrong position (through the protocol)."""
    errors = Path(save) / "errors"
    engine = f"{PYTHON} tests/engines/misbehaving_engine.py --error-position-off --errors {errors}"
    status, _, report = tapecheck(binary, "--engine-cmd", engine, "--cases", "100", "--seed", "1", save=save)
    expect(status == 1, f"the engine naming wrong error positions does not fail its verdict (exit status {status})")
    failed = [row for row in report["results"] if row["result"] == "fail"]
    expect({row["property"] for row in failed} == {"domain_errors"},
           f"failed rows other than domain_errors: {[row['property'] for row in failed]}")
    expect({row["carrier"] for row in failed} == {"rational", "double"},
           f"domain_errors failed on {[row['carrier'] for row in failed]}, not on both carriers")
    for row in failed:
        why = row["failure"]["why"]
        expect("'the engine failed: position " in why and ", or 'the engine failed: position " in why,
               f"domain_errors on {row['carrier']} failed otherwise: {why}")
    refusals = errors.read_text().splitlines() if errors.exists() else []
    by_op = {op: sum(1 for line in refusals if line.split()[0] == op) for op in ("div", "inv", "log")}
    nan = sum(1 for line in refusals if "nan" in line.split()[1:])
    expect(all(by_op.values()), f"refusals drawn per op: {by_op}: an op with a domain was never refused")
    # How many refused values are NaN is not asserted: the engine logs what it answered, and under load
    # planned requests cancelled after a failure change the count (1 alone, 0 beside another test at
    # seed 1 after the generator's stress and kernel-sized cases moved the draws).
    print(f"check_engines: domain_errors failed on {len(failed)} carriers; the run drew {len(refusals)} refusals "
          f"(div {by_op['div']}, inv {by_op['inv']}, log {by_op['log']}; {nan} of a NaN)")


def survey_table(report):
    """Per op and carrier: the worst class of difference and how many failing cases, over every property."""
    worst, counts, carriers = {}, {}, []
    for row in report["results"]:
        if row["carrier"] not in carriers:
            carriers.append(row["carrier"])
        for kind in row["kinds"]:
            # an op's forward values and its gradients (∂op, the kind's label) are separate lines
            key = (kind["label"], row["carrier"])
            worst[key] = max(worst.get(key, 0), CLASSES.index(kind["difference"]))
            counts[key] = counts.get(key, 0) + kind["cases"]
    total = sum(row["cases"] for row in report["results"])
    failed = sum(row["failed"] for row in report["results"])
    lines = [f"`tapecheck run --engine-cmd \"{TORCH}\" {' '.join(SURVEY_ARGS)}`: {failed} of {total} "
             f"property cases differ; per op (the one each difference is blamed on: op for its forward values, ∂op "
             f"for gradients), the worst class of difference and how many failing cases:", "", "| op | " + " | ".join(carriers) + " |",
             "|---|" + "---|" * len(carriers)]
    for op in sorted({op for op, _ in worst}, key=lambda name: (name.lstrip("∂"), name.startswith("∂"))):
        cells = [f"{CLASSES[worst[(op, c)]]} ({counts[(op, c)]})" if (op, c) in worst else "—" for c in carriers]
        lines.append(f"| {op} | " + " | ".join(cells) + " |")
    profile = report["profile"]
    lines += ["", "Conventions declared (and measured: under the specification's own, the same run fails at relu, "
              "abs, max and min with NaN and signed-zero differences): " +
              ", ".join(f"{op} `{choice}`" for op, choice in sorted(profile["kinks"].items())) +
              f"; NaN `{profile['nan']}`; sign of zero `{profile['zero_sign']}`; single output "
              f"`{profile['single_output']}`; policy `{report['policy']}`."]
    for deviation in profile.get("deviations", []):
        region = " and ".join(f"x {'<' if side == 'below' else '>'} {deviation[side]}" for side in ("below", "above")
                              if side in deviation)
        lines.append(f"Deviation declared on {', '.join(deviation['carriers'])}: {deviation['op']}(x) gives "
                     f"{deviation['gives']} where {region} ({deviation.get('why', '')}).")
    return "\n".join(lines) + "\n"


def survey_shard(binary, save, shard, directory):
    """Shard I of N of the survey; its report goes to DIRECTORY/shard-I-of-N.json."""
    Path(directory).mkdir(parents=True, exist_ok=True)
    report_path = Path(directory) / f"shard-{shard[0]}-of-{shard[1]}.json"
    report_path.unlink(missing_ok=True)  # a stale report must not stand in for this run
    status, _, report = tapecheck(binary, "--engine-cmd", TORCH, *SURVEY_ARGS, *shard_args(shard), save=save,
                                  report=report_path)
    expect(report is not None, f"the survey shard wrote no report (exit status {status})")
    return report


def merged_survey(count, directory):
    """The report of the whole survey from its shards' reports: row r is row r // N of shard r % N."""
    shards = []
    for i in range(count):
        path = Path(directory) / f"shard-{i}-of-{count}.json"
        expect(path.exists(), f"{path} is missing: the survey shards run first (ctest fixture torch-survey)")
        shards.append(json.loads(path.read_text()))
    rows = sum(len(s["results"]) for s in shards)
    merged = dict(shards[0])
    merged["results"] = [shards[r % count]["results"][r // count] for r in range(rows)]
    return merged


def torch_survey(binary, save, update, report=None):
    if report is None:
        status, _, report = tapecheck(binary, "--engine-cmd", TORCH, *SURVEY_ARGS, save=save)
        expect(report is not None, f"the survey wrote no report (exit status {status})")
    table = survey_table(report)
    # The table lives in one page of the documentation (README.md or docs/*.md), wherever it was moved.
    holders = [p for p in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))] if BEGIN in p.read_text()]
    expect(len(holders) == 1, f"{len(holders)} pages (README.md, docs/*.md) hold {BEGIN}; exactly one must")
    page = holders[0]
    name = str(page.relative_to(REPO))
    text = page.read_text()
    expect(END in text.split(BEGIN, 1)[1], f"{name} has {BEGIN} but no {END} after it")
    before, rest = text.split(BEGIN, 1)
    current, after = rest.split(END, 1)
    if update:
        page.write_text(before + BEGIN + "\n" + table + END + after)
        print(f"check_engines: {name}'s PyTorch survey table rewritten")
        return
    expect(current.strip() == table.strip(),
           f"{name}'s PyTorch survey table is not what the survey prints; run "
           f"tests/engines/check_engines.py build/tapecheck torch-survey --update\n--- {name}\n" + current +
           "\n--- survey\n" + table)


def main():
    binary, check, rest = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3:]
    with tempfile.TemporaryDirectory() as save:
        if check == "torch-verdict":
            torch_verdict(binary, save, int(rest[0]))
        elif check == "torch-own-op":
            torch_own_op(binary, save)
        elif check == "torch-survey-shard":
            survey_shard(binary, save, (int(rest[0]), int(rest[1])), rest[2])
        elif check == "torch-survey-table":
            torch_survey(binary, save, False, merged_survey(int(rest[0]), rest[1]))
        elif check == "scalar":
            scalar(binary, save)
        elif check == "scalar-bug":
            scalar_bug(binary, save)
        elif check in ("misbehaving-hang", "misbehaving-crash"):
            misbehaving(binary, save, check.split("-")[1])
        elif check == "misbehaving-error-position":
            misbehaving_error_position(binary, save)
        elif check == "torch-survey":
            torch_survey(binary, save, "--update" in sys.argv[3:])
        else:
            expect(False, f"no check named {check}")


if __name__ == "__main__":
    main()
