"""A pytest plugin: tapecheck's engine verdict on your engine, one pytest item per property x carrier row.

The setup is one line in a top-level conftest.py (with adapters/python on the import path) and the engine's
command, given in any of three ways (docs/pytest.md):

    pytest_plugins = ["tapecheck_pytest"]
    tapecheck_engine = "python3 my_engine.py"          # in that conftest.py: run in the conftest's directory
    # or: pytest --tapecheck-engine "python3 my_engine.py"     (run in the directory pytest was started in)
    # or: tapecheck_engine = python3 my_engine.py  in the [pytest] ini section (run in the ini file's directory)

The command line's engine wins over a conftest.py's, which wins over the ini file's. Without any of them the
session stops with a usage error. Options (each also an environment variable or an ini key, as noted):

    --tapecheck-engine CMD       the engine's shell command (docs/engine-protocol.md)
    --tapecheck-binary PATH      the tapecheck program; else $TAPECHECK, else `tapecheck` on PATH
    --tapecheck-cases N          cases per row; else $TAPECHECK_CASES, else tapecheck's 100
    --tapecheck-seed S           the run's seed; else $TAPECHECK_SEED, else a random one (printed in the header)
    --tapecheck-args ARGS        more `tapecheck run` options, e.g. "--carrier rational" (replaces a
                                 conftest.py's `tapecheck_args` list and the ini key tapecheck_args)
    --tapecheck-save-failures DIR  where shrunk counterexamples go (default tapecheck's: tapecheck-failures,
                                 in the directory the engine runs in)
    --tapecheck-nothing-compared fail|skip  a row that compared no case: a failure, as tapecheck judges it
                                 (default), or a skip with tapecheck's reason

How it runs. tapecheck has no way to list the verdict's rows without running them (the rows depend on the
profile the engine announces), so the conftest.py's collector runs `tapecheck run --json` once, at
collection, and makes an item of every row of the report; each item then reports its own row: a pass, a
failure whose message is that row's part of tapecheck's output (why, the shrunk listing, the saved file
and the `replay:` and `rerun:` commands), or for a row that compared nothing its reason. A last item,
`coverage`, carries the run's coverage floors (failed when one is missed, skipped when no carrier ran the
cases the floors are judged from); when the run judged counterexamples saved by earlier runs first (the
failure database, docs/cli.md), an item `saved` fails when one of them fails again; when tapecheck's checks of
its own oracles fail in the run (coverage tags, accuracy witnesses), an item `self_check` fails with them. So the engine starts once per session, also under `-k` or
`--collect-only`. A run that ends in a usage error or breaks off (exit status 2, an engine that never
says hello, no report) is a collection error with tapecheck's own message. The items are named
`conftest.py::tapecheck::PROPERTY[CARRIER]`; pytest's own --junitxml reports them.
"""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import shutil
import subprocess
import tempfile
import types
from dataclasses import dataclass, field
from pathlib import Path

import pytest

PLUGIN = "tapecheck_pytest"
ENV_BINARY, ENV_CASES, ENV_SEED = "TAPECHECK", "TAPECHECK_CASES", "TAPECHECK_SEED"
FAILURE_HEADER = re.compile(r"^(\S+) failed on (\S+) with engine ")


@dataclass
class EngineSpec:
    """One engine to check: its command, the directory it runs in, and more `tapecheck run` options."""
    command: str
    directory: Path
    args: list = field(default_factory=list)
    source: str = ""


@dataclass
class Settings:
    """What the session's options resolve to (pytest_configure)."""
    binary: str | None
    cases: int | None
    seed: int
    cli_engine: str | None
    cli_args: list | None
    ini_engine: str | None
    ini_args: list
    save_failures: str | None
    nothing_compared: str
    used_shared: bool = False  # the command line's (or the ini file's) engine has its conftest.py


SETTINGS = pytest.StashKey[Settings]()


def pytest_addoption(parser):
    group = parser.getgroup("tapecheck", "tapecheck's engine verdict (adapters/python/tapecheck_pytest.py)")
    group.addoption("--tapecheck-engine", metavar="CMD",
                    help="the shell command that starts the engine to check (overrides conftest.py and ini)")
    group.addoption("--tapecheck-binary", metavar="PATH",
                    help=f"the tapecheck program (default: ${ENV_BINARY}, else PATH)")
    group.addoption("--tapecheck-cases", metavar="N", type=int, help=f"cases per row (default: ${ENV_CASES}, else 100)")
    group.addoption("--tapecheck-seed", metavar="S", type=int,
                    help=f"the run's seed (default: ${ENV_SEED}, else random; printed in the header)")
    group.addoption("--tapecheck-args", metavar="ARGS",
                    help="more `tapecheck run` options, one shell-quoted string (e.g. \"--carrier rational\")")
    group.addoption("--tapecheck-save-failures", metavar="DIR",
                    help="where shrunk counterexamples are saved (default: tapecheck-failures where the engine runs)")
    group.addoption("--tapecheck-nothing-compared", choices=["fail", "skip"], default="fail",
                    help="a row that compared no case fails (default, tapecheck's verdict) or is skipped")
    parser.addini("tapecheck_engine",
                  "the shell command that starts the engine to check (run in the ini file's directory)")
    parser.addini("tapecheck_args", "more `tapecheck run` options", type="args")


def _int_from(option, env, what):
    if option is not None:
        return option
    text = os.environ.get(env, "").strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise pytest.UsageError(f"{PLUGIN}: ${env} must be an integer {what}, not {text!r}") from None


def _conftest_modules(config):
    return [m for m in config.pluginmanager.get_plugins()
            if getattr(m, "__file__", None) and Path(m.__file__).name == "conftest.py"]


def _loads_plugin(module):
    names = getattr(module, "pytest_plugins", ())
    names = [names] if isinstance(names, str) else list(names)
    return PLUGIN in names or hasattr(module, "tapecheck_engine")


def pytest_configure(config):
    if config.option.help or getattr(config.option, "version", False):
        return
    opt = config.option
    seed = _int_from(opt.tapecheck_seed, ENV_SEED, "seed")
    settings = Settings(
        binary=opt.tapecheck_binary or os.environ.get(ENV_BINARY) or shutil.which("tapecheck"),
        cases=_int_from(opt.tapecheck_cases, ENV_CASES, "number of cases"),
        seed=seed if seed is not None else random.randrange(1, 1_000_000_007),
        cli_engine=opt.tapecheck_engine or None,
        cli_args=shlex.split(opt.tapecheck_args) if opt.tapecheck_args is not None else None,
        ini_engine=config.getini("tapecheck_engine") or None,
        ini_args=list(config.getini("tapecheck_args")),
        save_failures=str(config.invocation_params.dir / opt.tapecheck_save_failures) if opt.tapecheck_save_failures
        else None,
        nothing_compared=opt.tapecheck_nothing_compared)
    if not (settings.cli_engine or settings.ini_engine
            or any(hasattr(m, "tapecheck_engine") for m in _conftest_modules(config))):
        raise pytest.UsageError(
            f"{PLUGIN}: no engine to check: give its command with --tapecheck-engine \"python3 my_engine.py\", "
            "set tapecheck_engine = \"...\" in the conftest.py that loads the plugin, or tapecheck_engine in the "
            "[pytest] section of the ini file")
    if not settings.binary:
        raise pytest.UsageError(f"{PLUGIN}: the tapecheck program was not found: give --tapecheck-binary PATH, "
                                f"set ${ENV_BINARY}, or put tapecheck on PATH")
    config.stash[SETTINGS] = settings


def pytest_report_header(config):
    settings = config.stash.get(SETTINGS, None)
    if settings is None:
        return None
    cases = settings.cases if settings.cases is not None else "100 (tapecheck's default)"
    return (f"tapecheck: {settings.binary}, seed {settings.seed}, {cases} cases per row "
            f"(repeat with --tapecheck-seed {settings.seed})")


def _spec_for(config, module, path):
    """The engine a conftest.py's collector checks, or None (each engine is checked once a session)."""
    settings = config.stash[SETTINGS]
    own_args = getattr(module, "tapecheck_args", None)
    own_args = shlex.split(own_args) if isinstance(own_args, str) else own_args

    def args(fallback):
        if settings.cli_args is not None:
            return list(settings.cli_args)
        return list(own_args if own_args is not None else fallback)

    if settings.cli_engine:
        if settings.used_shared or not _loads_plugin(module):
            return None
        settings.used_shared = True
        return EngineSpec(settings.cli_engine, config.invocation_params.dir, args(settings.ini_args),
                          "--tapecheck-engine")
    if hasattr(module, "tapecheck_engine"):
        return EngineSpec(str(module.tapecheck_engine), path.parent, args(settings.ini_args), str(path))
    if settings.ini_engine and not settings.used_shared and _loads_plugin(module):
        settings.used_shared = True
        where = config.inipath.parent if config.inipath else config.rootpath
        return EngineSpec(settings.ini_engine, where, args(settings.ini_args), str(config.inipath))
    return None


def pytest_collect_file(file_path, parent):
    if file_path.name != "conftest.py" or SETTINGS not in parent.config.stash:
        return None
    module = parent.config.pluginmanager.get_plugin(str(file_path))
    spec = module and _spec_for(parent.config, module, file_path)
    return TapecheckFile.from_parent(parent, path=file_path, spec=spec) if spec else None


class TapecheckError(Exception):
    """tapecheck could not give a verdict (a collection error), or a row failed (an item's failure): the
    text shown, and a one-line summary (pytest's short summary, JUnit's failure message)."""

    def __init__(self, text, summary=None):
        super().__init__(text)
        self.text = text
        self.summary = summary or text.splitlines()[0]


class Report:
    """A failure as pytest shows it: the text, no traceback of this module; `reprcrash.message` is the
    summary that pytest's short summary line and JUnit's failure message attribute take."""

    def __init__(self, error):
        self.text = error.text
        self.reprcrash = types.SimpleNamespace(message=error.summary)

    def toterminal(self, tw):
        for line in self.text.splitlines():
            tw.line(line)

    def __str__(self):
        return self.text


class TapecheckFile(pytest.File):
    """The conftest.py that names the engine; its one child runs the verdict."""

    def __init__(self, *, spec, **kwargs):
        super().__init__(**kwargs)
        self.spec = spec

    def collect(self):
        yield TapecheckRun.from_parent(self, name="tapecheck", spec=self.spec)


SAVED_SUMMARY = re.compile(r"^(\d+ saved counterexamples? in |no saved counterexample for this engine in )")


@dataclass
class RunOutcome:
    """What one `tapecheck run` said: its report, its output split per row, where it ran, and what it
    said of the saved counterexamples it judged first."""
    argv: list
    directory: Path
    report: dict
    blocks: dict
    not_judged: list
    saved_text: str = ""


def _saved_block(stdout):
    """What the run printed of the saved counterexamples: the summary line and its indented lines."""
    lines = stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if SAVED_SUMMARY.match(line)), None)
    if start is None:
        return ""
    end = start + 1
    while end < len(lines) and lines[end].startswith("  "):
        end += 1
    return "\n".join(lines[start:end])


# What tapecheck checks of itself in a run (docs/semantics.md): the coverage tags against their corpus, the
# accuracy oracle against its witnesses. A fault there is tapecheck's, and fails the run.
SELF_CHECKS = (("coverage_tag_faults", "coverage tags wrong on {} (a fault in tapecheck's coverage tags: its floors "
                                       "cannot be trusted)"),
               ("accuracy_oracle_faults", "accuracy oracle wrong on {} (a fault in tapecheck's accuracy oracle: its "
                                          "verdicts cannot be trusted)"))


def _self_check_faults(report):
    """The report's faults of tapecheck's own checks, as the run prints them."""
    return [line.format(fault) for key, line in SELF_CHECKS for fault in report.get(key) or []]


def _failure_blocks(stdout):
    """Each failing row's part of tapecheck's output, from `P failed on C with engine ...` to `rerun:`."""
    blocks, current, key = {}, None, None
    for line in stdout.splitlines():
        header = FAILURE_HEADER.match(line)
        if header:
            key, current = (header.group(1), header.group(2)), [line]
            continue
        if current is None:
            continue
        current.append(line)
        if line.startswith("rerun:"):
            blocks[key] = "\n".join(current)
            current = None
    return blocks


class TapecheckRun(pytest.Collector):
    """Runs `tapecheck run --json` once on the engine and makes an item per row of its report."""

    def __init__(self, *, spec, **kwargs):
        super().__init__(**kwargs)
        self.spec = spec

    def _run(self):
        settings = self.config.stash[SETTINGS]
        with tempfile.TemporaryDirectory(prefix="tapecheck-pytest-") as scratch:
            report_file = Path(scratch) / "report.json"
            argv = [settings.binary, "run", "--engine-cmd", self.spec.command, "--seed", str(settings.seed),
                    "--json", str(report_file)]
            if settings.cases is not None:
                argv += ["--cases", str(settings.cases)]
            if settings.save_failures:
                argv += ["--save-failures", settings.save_failures]
            argv += self.spec.args
            # every row: GoogleTest's shard variables, which tapecheck run also reads, are not pytest's
            # (shard with --tapecheck-args "--shard I/N")
            env = {k: v for k, v in os.environ.items() if k not in ("GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS")}
            try:
                done = subprocess.run(argv, cwd=self.spec.directory, env=env, stdin=subprocess.DEVNULL,
                                      capture_output=True, text=True)
            except OSError as error:
                raise TapecheckError(f"{PLUGIN}: cannot run {settings.binary}: {error}") from None
            report = json.loads(report_file.read_text()) if report_file.exists() else None
        command = shlex.join(argv)
        if done.returncode not in (0, 1) or report is None:
            raise TapecheckError(
                f"{PLUGIN}: tapecheck gave no verdict (exit status {done.returncode}) on the engine from "
                f"{self.spec.source}\n  in {self.spec.directory}: {command}\n"
                f"{done.stderr.rstrip()}\n{done.stdout[-4000:].rstrip()}".rstrip())
        failed_rows = [r for r in report["results"] if r["result"] != "pass"]
        saved_failed = not (report.get("saved") or {}).get("passed", True)
        if (done.returncode == 1 and not failed_rows and not report.get("coverage_shortfalls") and not saved_failed
                and not _self_check_faults(report)):
            raise TapecheckError(f"{PLUGIN}: tapecheck failed (exit status 1) but its report names no failing row, "
                                 f"coverage floor, saved counterexample or fault of its own: {command}\n"
                                 f"{done.stderr}{done.stdout[-4000:]}")
        not_judged = [line for line in done.stdout.splitlines() if line.startswith("coverage floors not judged on ")]
        return RunOutcome(argv, self.spec.directory, report, _failure_blocks(done.stdout), not_judged,
                          _saved_block(done.stdout))

    def collect(self):
        outcome = self._run()
        names = [f"{r['property']}[{r['carrier']}]" for r in outcome.report["results"]]
        for row, name in zip(outcome.report["results"], names):
            if names.count(name) > 1:
                name = f"{row['property']}[{row['carrier']}-{row['domain']}]"
            yield TapecheckRow.from_parent(self, name=name, row=row, outcome=outcome)
        yield TapecheckCoverage.from_parent(self, name="coverage", outcome=outcome)
        saved = outcome.report.get("saved")
        if saved and (saved.get("cases") or saved.get("unreadable")):
            yield TapecheckSaved.from_parent(self, name="saved", outcome=outcome)
        if _self_check_faults(outcome.report):
            yield TapecheckSelfCheck.from_parent(self, name="self_check", outcome=outcome)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, TapecheckError):
            return Report(excinfo.value)
        return super().repr_failure(excinfo, style)


def _skip(reason):
    """pytest.skip, reported at the item (conftest.py) rather than at this line, where pytest allows it."""
    try:
        skip = pytest.skip.Exception(reason, _use_item_location=True)
    except TypeError:
        skip = pytest.skip.Exception(reason)
    raise skip


def _counts(row):
    return (f"{row['cases']} cases, {row['compared']} compared, {row['skipped']} skipped, "
            f"{row['unsupported']} unsupported, domain {row['domain']}, policy {row['policy']}")


class TapecheckItem(pytest.Item):
    def __init__(self, *, outcome, **kwargs):
        super().__init__(**kwargs)
        self.outcome = outcome

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, TapecheckError):
            return Report(excinfo.value)
        return super().repr_failure(excinfo, style)

    def _where(self):
        report = self.outcome.report
        return (f"(tapecheck run: seed {report['seed']}, {report['cases_per_property']} cases per row, "
                f"engine {report['engine']!r}; replay and rerun in {self.outcome.directory})")


class TapecheckRow(TapecheckItem):
    """One property x carrier row of the verdict: its outcome is the report's."""

    def __init__(self, *, row, **kwargs):
        super().__init__(**kwargs)
        self.row = row

    def reportinfo(self):
        row = self.row
        return self.path, 0, f"tapecheck {row['property']} on {row['carrier']} ({row['domain']} domain)"

    def runtest(self):
        row = self.row
        if row["result"] == "pass":
            return
        title = f"{row['property']} on {row['carrier']} FAILED: {_counts(row)}"
        if "failure" not in row and "why" in row:  # compared no case: tapecheck fails the row and says why
            if self.config.stash[SETTINGS].nothing_compared == "skip":
                _skip(f"tapecheck {row['property']} on {row['carrier']}: {row['why']}")
            raise TapecheckError(f"{title}\n{row['why']}\n{self._where()}", row["why"])
        block = self.outcome.blocks.get((row["property"], row["carrier"]))
        if block is None:  # no listing in the output (a survey, say): the report's own words
            failure = row.get("failure", {})
            kinds = "".join(f"\n  {k.get('label', k['op'])}: {k['difference']} ({k['cases']} cases): {k['why']}\n  saved: {k['saved']}"
                            for k in row.get("kinds", []))
            block = (failure.get("why", "") + (f"\nsaved: {failure['saved']}" if failure.get("saved") else "") + kinds
                     ).strip() or "(tapecheck printed no counterexample for this row)"
        raise TapecheckError(f"{title}\n{block}\n{self._where()}", row.get("failure", {}).get("why"))


class TapecheckCoverage(TapecheckItem):
    """The run's coverage floors (docs/semantics.md): a floor missed fails the verdict as a row does."""

    def reportinfo(self):
        return self.path, 0, "tapecheck coverage floors"

    def runtest(self):
        report = self.outcome.report
        if report.get("coverage_shortfalls"):
            lines = "\n".join(f"coverage below floor on {s}" for s in report["coverage_shortfalls"])
            raise TapecheckError(f"coverage FAILED: the generated cases missed a floor\n{lines}\n{self._where()}",
                                 f"coverage below floor on {report['coverage_shortfalls'][0]}"
                                 + (f" and {len(report['coverage_shortfalls']) - 1} more"
                                    if len(report["coverage_shortfalls"]) > 1 else ""))
        # Skipped only when no floor of any carrier could be judged (too few cases); a run that judged
        # some floors and lists its rare ones as not judged passes what it judged.
        coverage = report.get("coverage", {})
        if coverage and all(len(c.get("floors_not_judged", [])) >= len(c.get("floors", {})) for c in coverage.values()):
            _skip("; ".join(self.outcome.not_judged))


class TapecheckSelfCheck(TapecheckItem):
    """tapecheck's checks of its own oracles in this run; made only when one failed: the verdict cannot be
    trusted, whatever the rows say, and the fault is tapecheck's, not the engine's."""

    def reportinfo(self):
        return self.path, 0, "tapecheck's checks of itself"

    def runtest(self):
        faults = _self_check_faults(self.outcome.report)
        raise TapecheckError(f"self_check FAILED: tapecheck's own checks failed in this run\n" + "\n".join(faults)
                             + f"\n{self._where()}", faults[0])


class TapecheckSaved(TapecheckItem):
    """The counterexamples saved by earlier runs, judged first: one that fails again fails the verdict."""

    def reportinfo(self):
        return self.path, 0, "tapecheck saved counterexamples"

    def runtest(self):
        saved = self.outcome.report["saved"]
        if saved["passed"]:
            return
        again = [c for c in saved["cases"] if c["result"] == "fail"]
        text = self.outcome.saved_text or "\n".join(f"still fails: {c['file']}: {c['why']}" for c in again)
        raise TapecheckError(f"saved FAILED: {len(again)} saved counterexample{'s' if len(again) != 1 else ''} "
                             f"still fail{'s' if len(again) == 1 else ''}\n{text}\n{self._where()}",
                             f"{again[0]['file']} still fails: {again[0]['why']}" if again else None)

