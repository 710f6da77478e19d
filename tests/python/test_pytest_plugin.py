"""The pytest plugin (adapters/python/tapecheck_pytest.py) on its example (examples/python/pytest_verdict).

Runs pytest in a child process, as a user would, and compares what it reports with what tapecheck's own
`run --json` reports for the same engine, seed, cases and options: one item per row, the correct engine's
rows all pass, the planted bug's failing rows fail with their listing and replay command, --junitxml holds a
testcase per row, a row that compared nothing is never a pass, a missed coverage floor fails the `coverage`
item, a fault in tapecheck's own checks fails the `self_check` item, the engine may come from the ini file, a missing engine is a usage error and an engine that does not
start a collection error.

The tapecheck program is $TAPECHECK (ctest passes the build's own), else build/tapecheck.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "python" / "pytest_verdict"
SCALAR = REPO / "examples" / "python" / "scalar_engine.py"
ADAPTERS = REPO / "adapters" / "python"
TAPECHECK = os.environ.get("TAPECHECK") or str(REPO / "build" / "tapecheck")
EXAMPLE_ARGS = ["--carrier", "rational"]  # the example conftest.py's tapecheck_args
SEED, CASES = 1, 100
PYTEST_USAGE_ERROR = 4

NEVER_COMPARES = '''\
import sys
sys.path.insert(0, {adapters!r})
from tapecheck_engine import Engine, Unsupported, serve

class NeverCompares(Engine):
    """Announces add and sum on rational, then answers every case `unsupported`."""
    profile = {{"name": "never", "carriers": ["rational"], "ops": ["add", "sum"]}}

    def leaf(self, carrier, shape, values):
        raise Unsupported("leaf")

serve(NeverCompares())
'''


# A tapecheck whose run finds the engine right but its own accuracy oracle and coverage tags wrong (as a
# build with mutant 72 does): one passing row, the faults in the report, exit status 1.
FAULTY_TAPECHECK = '''\
import json
import sys

args = sys.argv[1:]
row = {{"property": "accuracy", "carrier": "double", "domain": "default", "result": "pass", "cases": 100,
        "compared": 100, "skipped": 0, "unsupported": 0, "policy": "values"}}
report = {{"seed": 1, "cases_per_property": 100, "engine": "scalar", "results": [row], "coverage": {{}},
          "coverage_shortfalls": [], "coverage_tag_faults": ["double: op add: tagged 'op sub'"],
          "accuracy_oracle_faults": ["add on double: the forward about 1.5 budgets off (0.8) passes"]}}
with open(args[args.index("--json") + 1], "w") as out:
    json.dump(report, out)
print("1 properties x carriers, 100 cases in 0.1 s, seed 1: all passed, coverage tags wrong, accuracy oracle wrong")
sys.exit(1)
'''


def engine(*args: str) -> str:
    return shlex.join([sys.executable, str(SCALAR), *args])


def environment(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("TAPECHECK_SEED", "TAPECHECK_CASES", "PYTEST_ADDOPTS")}
    # wide lines: pytest cuts its short summary (FAILED id - reason) to the terminal's width
    env.update({"TAPECHECK": TAPECHECK, "PYTHONDONTWRITEBYTECODE": "1", "COLUMNS": "1000", **extra})
    return env


class PytestPluginTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        assert Path(TAPECHECK).is_file(), f"no tapecheck program at {TAPECHECK} (set $TAPECHECK; ctest does)"
        have = subprocess.run([sys.executable, "-c", "import pytest"], capture_output=True)
        assert have.returncode == 0, f"{sys.executable} has no pytest (scripts/setup.sh --test installs python3-pytest)"

    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory(prefix="test-pytest-plugin-")
        self.tmp = Path(self.scratch.name)

    def tearDown(self):
        self.scratch.cleanup()

    def pytest(self, *args: str, cwd: Path = EXAMPLE, env: dict | None = None) -> subprocess.CompletedProcess:
        argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA",
                f"--tapecheck-save-failures={self.tmp / 'failures'}", *args]  # "=": pytest takes an existing
        # path given as an option's separate argument for a test path when it picks its rootdir
        return subprocess.run(argv, cwd=cwd, env=env or environment(), capture_output=True, text=True, timeout=300)

    def tapecheck_rows(self, command: str) -> list:
        """tapecheck's own report of the rows, run as the example's conftest.py runs it."""
        report = self.tmp / "own.json"
        run = subprocess.run([TAPECHECK, "run", "--engine-cmd", command, "--seed", str(SEED), "--cases", str(CASES),
                              "--json", str(report), "--save-failures", str(self.tmp / "own-failures"), "--quiet",
                              *EXAMPLE_ARGS], cwd=EXAMPLE, capture_output=True, text=True, timeout=300)
        self.assertIn(run.returncode, (0, 1), run.stderr)
        return json.loads(report.read_text())["results"]

    def junit_cases(self, path: Path) -> dict:
        """The testcases of a JUnit file: name -> the tag of its outcome element (None: passed), its message
        and its text."""
        root = ElementTree.parse(path).getroot()
        cases = {}
        for case in root.iter("testcase"):
            outcome = next((c for c in case if c.tag in ("failure", "error", "skipped")), None)
            cases[case.get("name")] = (None, "", "") if outcome is None else (outcome.tag, outcome.get("message", ""),
                                                                                outcome.text or "")
        return cases

    def test_one_passing_item_per_row_and_junit(self):
        rows = self.tapecheck_rows(engine())
        self.assertTrue(rows and all(r["result"] == "pass" for r in rows), rows)
        junit = self.tmp / "junit.xml"
        run = self.pytest("-v", "--tapecheck-seed", str(SEED), "--tapecheck-cases", str(CASES),
                          "--junitxml", str(junit))
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        names = [f"{r['property']}[{r['carrier']}]" for r in rows]
        passed = [line.split("::")[-1].split()[0] for line in run.stdout.splitlines()
                  if line.startswith("conftest.py::tapecheck::") and line.rstrip().endswith("]") and " PASSED " in line]
        self.assertEqual(passed, names + ["coverage"], run.stdout)
        self.assertIn(f"collected {len(rows) + 1} items", run.stdout)
        self.assertIn(f"tapecheck: {TAPECHECK}, seed {SEED}, {CASES} cases per row", run.stdout)
        cases = self.junit_cases(junit)
        self.assertEqual(sorted(cases), sorted(names + ["coverage"]))
        self.assertEqual({outcome for outcome, _, _ in cases.values()}, {None})

    def test_the_planted_bug_fails_its_rows_with_listing_and_replay(self):
        bug = engine("--bug")
        rows = self.tapecheck_rows(bug)
        failing = {f"{r['property']}[{r['carrier']}]": r["failure"]["why"] for r in rows if r["result"] == "fail"}
        self.assertTrue(failing, "tapecheck itself does not catch the planted bug")
        junit = self.tmp / "junit.xml"
        run = self.pytest("--tapecheck-engine", bug, "--tapecheck-seed", str(SEED), "--tapecheck-cases", str(CASES),
                          "--junitxml", str(junit))
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        reported = dict(line.split("::")[-1].strip().split(" - ", 1) for line in run.stdout.splitlines()
                        if line.startswith("FAILED "))
        self.assertEqual(reported, failing, run.stdout)  # the short summary: each row's failure, tapecheck's why
        self.assertIn(f"{len(rows) - len(failing) + 1} passed", run.stdout)
        cases = self.junit_cases(junit)
        self.assertEqual(sorted(cases), sorted([f"{r['property']}[{r['carrier']}]" for r in rows] + ["coverage"]))
        for name, (outcome, message, text) in cases.items():
            if name not in failing:
                self.assertIsNone(outcome, f"{name}: {text}")
                continue
            prop = name.split("[")[0]
            self.assertEqual((outcome, message), ("failure", failing[name]), name)
            self.assertIn(f"{prop} failed on rational with engine scalar (shrunk in", text)
            self.assertIn("add(0, 0)", text)  # the shrunk listing: the bug needs a repeated argument
            saved = self.tmp / "failures" / f"{prop}-rational-{SEED}.json"
            self.assertIn(f"replay: tapecheck replay {saved} --engine-cmd {shlex.quote(bug)}", text)
            self.assertIn(f"rerun:  tapecheck run --property {prop} --carrier rational", text)
            self.assertTrue(saved.is_file(), saved)
            self.assertNotIn("coverage: share of generated cases", text)  # the row's part, not the whole run
        for name in failing:  # the terminal report has the same: each failure's section names its replay
            self.assertIn(f"replay: tapecheck replay {self.tmp / 'failures' / name.split('[')[0]}", run.stdout)

    def test_a_saved_counterexample_that_fails_again_fails_the_saved_item(self):
        bug = engine("--bug")
        first = self.pytest("--tapecheck-engine", bug, "--tapecheck-seed", str(SEED), "--tapecheck-cases", str(CASES))
        self.assertEqual(first.returncode, 1, first.stdout + first.stderr)
        self.assertNotIn("::saved", first.stdout)  # nothing was saved before the first run
        saved = sorted((self.tmp / "failures").glob("*.json"))
        self.assertTrue(saved, first.stdout)
        # One small case a row, which does not find the bug: what fails is what the first run saved.
        again = self.pytest("-v", "--tapecheck-engine", bug, "--tapecheck-seed", "2", "--tapecheck-cases", "1",
                            "--tapecheck-args", "--carrier rational --max-size 0", "--tapecheck-nothing-compared", "skip")
        self.assertEqual(again.returncode, 1, again.stdout + again.stderr)
        failed = [line for line in again.stdout.splitlines() if line.startswith("FAILED ")]
        self.assertEqual(len(failed), 1, again.stdout)
        self.assertTrue(failed[0].startswith(f"FAILED conftest.py::tapecheck::saved - {saved[0]} still fails: "), failed)
        self.assertIn(f"saved FAILED: {len(saved)} saved counterexample", again.stdout)
        self.assertIn(f"  replay: tapecheck replay {saved[0]} --engine-cmd {shlex.quote(bug)}", again.stdout)

    def test_a_run_that_compares_nothing_at_all_is_a_collection_error(self):
        # tapecheck exits 2 when no row compared anything (CI must not take it for a verdict): no item passes.
        (self.tmp / "never.py").write_text(NEVER_COMPARES.format(adapters=str(ADAPTERS)))
        (self.tmp / "conftest.py").write_text(
            f"import sys\nsys.path.insert(0, {str(ADAPTERS)!r})\npytest_plugins = ['tapecheck_pytest']\n"
            f"tapecheck_engine = {shlex.join([sys.executable, 'never.py'])!r}\n")
        env = environment(TAPECHECK_SEED="7", TAPECHECK_CASES="5")
        for extra in ([], ["--tapecheck-nothing-compared", "skip"]):
            run = self.pytest(*extra, cwd=self.tmp, env=env)
            self.assertEqual(run.returncode, 2, run.stdout + run.stderr)  # pytest: interrupted by a collection error
            self.assertIn("tapecheck gave no verdict (exit status 2)", run.stdout)
            self.assertIn("nothing was compared", run.stdout)
            self.assertNotRegex(run.stdout, r"PASSED conftest.py::tapecheck::\w+\[")

    def test_a_row_that_compares_nothing_fails_or_is_skipped_never_passes(self):
        # Cases of size 0 have no nodes: kink_conventions and forward_oracle compare nothing, the others do.
        args = ("--tapecheck-args", "--carrier rational --max-size 0", "--tapecheck-seed", "7", "--tapecheck-cases", "5")
        run = self.pytest(*args)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("seed 7, 5 cases per row", run.stdout)
        self.assertIn("FAILED conftest.py::tapecheck::kink_conventions[rational] - nothing compared: 5 of 5 cases",
                      run.stdout)
        self.assertNotRegex(run.stdout, r"PASSED conftest.py::tapecheck::kink_conventions")
        skipped = self.pytest("--tapecheck-nothing-compared", "skip", *args)
        self.assertRegex(skipped.stdout, r"SKIPPED \[1\] conftest.py:1: tapecheck kink_conventions on rational: nothing compared")
        self.assertNotRegex(skipped.stdout, r"PASSED conftest.py::tapecheck::kink_conventions")
        self.assertRegex(skipped.stdout, r"PASSED conftest.py::tapecheck::determinism\[rational\]")
        # What still fails is the coverage item only (floors unjudged on 5 cases would skip it; these are missed).
        failed = re.findall(r"^FAILED (\S+)", skipped.stdout, re.M)
        self.assertTrue(set(failed) <= {"conftest.py::tapecheck::coverage"}, skipped.stdout)

    def test_a_missed_coverage_floor_fails_the_coverage_item(self):
        # --tapecheck-args replaces the conftest.py's tapecheck_args; cases of size 0 have no ops at all
        run = self.pytest("--tapecheck-args", "--carrier rational --max-size 0", "--tapecheck-seed", str(SEED),
                          "--tapecheck-cases", "60")
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("FAILED conftest.py::tapecheck::coverage", run.stdout)
        self.assertRegex(run.stdout, r"coverage below floor on rational: op add: 0\.0% of \d+ cases, floor 2%")

    def test_a_fault_in_tapecheck_s_own_checks_fails_the_self_check_item(self):
        # Not a collection error "names no failing row": an item of its own fails, with tapecheck's words.
        faulty = self.tmp / "faulty_tapecheck.py"
        faulty.write_text(FAULTY_TAPECHECK.format())
        program = self.tmp / "tapecheck"
        program.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(faulty))} \"$@\"\n")
        program.chmod(0o755)
        run = self.pytest("-v", "--tapecheck-engine", engine(), env=environment(TAPECHECK=str(program)))
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("conftest.py::tapecheck::accuracy[double] PASSED", run.stdout)
        self.assertIn("FAILED conftest.py::tapecheck::self_check - coverage tags wrong on double: op add: tagged 'op sub'",
                      run.stdout)
        self.assertIn("accuracy oracle wrong on add on double: the forward about 1.5 budgets off (0.8) passes (a fault "
                      "in tapecheck's accuracy oracle: its verdicts cannot be trusted)", run.stdout)
        self.assertNotIn("names no failing row", run.stdout)

    def test_a_missing_engine_command_is_a_usage_error(self):
        (self.tmp / "conftest.py").write_text(
            f"import sys\nsys.path.insert(0, {str(ADAPTERS)!r})\npytest_plugins = ['tapecheck_pytest']\n")
        run = self.pytest(cwd=self.tmp)
        self.assertEqual(run.returncode, PYTEST_USAGE_ERROR, run.stdout + run.stderr)
        self.assertIn("tapecheck_pytest: no engine to check: give its command with --tapecheck-engine", run.stderr)

    def test_the_engine_and_options_from_the_ini_file(self):
        (self.tmp / "conftest.py").write_text(
            f"import sys\nsys.path.insert(0, {str(ADAPTERS)!r})\npytest_plugins = ['tapecheck_pytest']\n")
        tiny = shlex.join([sys.executable, str(REPO / "examples" / "python" / "tiny_engine.py")])
        (self.tmp / "pytest.ini").write_text(f"[pytest]\ntapecheck_engine = {tiny}\ntapecheck_args = --carrier double\n")
        run = self.pytest("-v", "--tapecheck-cases", "10", cwd=self.tmp)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("conftest.py::tapecheck::accuracy[double] PASSED", run.stdout)
        self.assertNotIn("[rational]", run.stdout)

    def test_an_engine_that_does_not_start_is_a_collection_error(self):
        run = self.pytest("--tapecheck-engine", "./no-such-engine")
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)  # pytest: interrupted by a collection error
        self.assertIn("tapecheck gave no verdict (exit status 2)", run.stdout)
        self.assertIn("exited before its hello", run.stdout)


if __name__ == "__main__":
    unittest.main()
