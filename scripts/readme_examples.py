#!/usr/bin/python3
"""Regenerates or checks every command-output block of the documentation (README.md and docs/*.md)
from a build.

    bash scripts/readme-examples.sh --check  [BUILD [MUTANTS_BUILD]] [--only A,B] [--skip-mutants] [--torch-survey]
    bash scripts/readme-examples.sh --update [BUILD [MUTANTS_BUILD]] [--only A,B] [--skip-mutants] [--torch-survey]
    bash scripts/readme-examples.sh --list   (the blocks and their commands)
    bash scripts/readme-examples.sh --names  (the blocks' names and what each needs, for ctest)

BUILD defaults to `build`, MUTANTS_BUILD to `build-mutants` (both relative to the repository root).

The pages are README.md and every docs/*.md (`pages()`). Every output block of a page sits between
`<!-- readme-example: NAME -->` and `<!-- /readme-example -->`; a block may live in any page, but in
exactly one, once (the pages are scanned for the markers: moving a block between pages needs no
change here). BLOCKS below says, per NAME, which commands produce it (shown with a `$ ` prompt,
exactly as a reader runs them from the repository root) and which lines of their output the page
keeps (runs of left-out lines become `...`). A fence without a language outside the blocks is command
output that nothing checks, and an error; text that is not command output (pseudo-code, a grammar, a
transcript of the protocol) takes a language (`text`); an output that cannot be generated here is
named as such by a line `<!-- not generated: REASON -->` right before its fence (--list lists them).
The PyTorch survey table between `<!-- torch-survey:begin -->` and `<!-- torch-survey:end -->` (in
whichever page holds it) is generated and checked by tests/engines/check_engines.py (ctest
PythonEngines.torch-survey.*; 1000 PyTorch cases per property, too slow for this check);
`--torch-survey` runs it here too.

The commands run in a scratch directory that links every top-level entry of the repository, with
`build` and `build-mutants` linked to the given build directories, so failure files land there and
not in the repository. Standard output and standard error are captured together.

--check compares each block with the fresh output after masking what depends on the machine and
the moment, on both sides: durations (`0.38 s`, `85ms`, the `time ms` column of the results tables)
and rates (`12523 cases/s`). Counts, percentages, verdicts and values are compared as they are.
A difference prints a unified diff naming the block and exits 1.

--update rewrites the blocks whose masked text differs. A block that differs only in its times is
left as it is, and in a rewritten block every line that agrees once masked keeps the page's text,
so the pages keep real-looking times and an update changes only the lines whose results changed.

Blocks that need the mutants build (`-DTAPECHECK_MUTANTS=ON`, scripts/mutants.sh) are skipped,
with a line saying so, when MUTANTS_BUILD has no tapecheck or with --skip-mutants (ctest passes it:
scripts/mutants.sh checks those blocks right after it builds build-mutants, so they are never
compared with a stale mutants build). Nothing is skipped silently.

Exit status: 0 when every block checked matches (or was rewritten), 1 when one differs, 2 for a
usage error or pages whose markers do not match BLOCKS.
"""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def pages():
    """The pages whose blocks are generated: README.md, then docs/*.md in name order."""
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def page_name(path):
    return str(path.relative_to(REPO))


PY = "/usr/bin/python3"  # Debian's interpreter (python3-torch lives there); the engines run with it
TINY = f"{PY} examples/python/tiny_engine.py"
SCALAR_BUG = f"{PY} examples/python/scalar_engine.py --bug"
INDEPENDENT = f"{PY} tests/engines/independent/engine.py"
# pytest on the plugin's example with the planted bug: the engine runs in the example's directory (the
# repository's, through the scratch directory's link), so its failures go to a folder of their own,
# emptied first (a run judges those saved before: the failure database), one per block (blocks run at once).
def pytest_bug(saves):
    return (f"cd examples/python/pytest_verdict && rm -rf {saves} && "
            "COLUMNS=80 TAPECHECK=$OLDPWD/build/tapecheck /usr/bin/python3 -m pytest -p no:cacheprovider -v "
            '--tapecheck-seed 1 --tapecheck-engine "/usr/bin/python3 ../scalar_engine.py --bug" '
            f"--tapecheck-save-failures={saves}")
BEGIN = re.compile(r"^<!-- readme-example: ([a-z0-9-]+) -->$")
END = "<!-- /readme-example -->"
NOT_GENERATED = re.compile(r"^<!-- not generated: .+ -->$")


@dataclass
class Step:
    """One command, shown as `$ cmd`; `keep` selects the lines the page shows (None: all).

    A keep rule is a regex (every line matching it) or a (start, stop) pair: from the first line
    matching the regex start through the first later line matching the regex stop (None: to the
    end), or through `stop` lines in all when it is a number.
    `prompt` False shows the output without the command line. `status` lists the exit statuses
    the example may end with: by default a pass or a finding, never a usage error or an unreadable
    file (an example that stopped meaning what its prose says)."""
    cmd: str
    keep: list | None = None
    prompt: bool = True
    status: tuple = (0, 1)


@dataclass
class Block:
    name: str
    steps: list
    needs: str = ""          # "" | "mutants" (the mutants build) | "minigrad" (examples/engine built)
    lang: str = ""           # the fence's language
    file: str = ""           # a file's text instead of commands


PROPERTY_ROW = r"^\w+\s+[\w-]+( \(exact\))?\s+\d+\s+\d+\s+\d+\s+\d+\s+(pass|FAIL)"
BLOCKS = [
    Block("run-seed1", [Step("./build/tapecheck run --cases 100 --seed 1", keep=[
        r"^tapecheck run:", r"^$", r"^property ", r"^(ofGraph_toTape|lowerChecked_toTape) +rational ",
        r"^(domain_errors|kink_conventions|adjoint_identity|node_adjoint_identity|linearity) +rational ",
        r"^(adjoint_identity|node_adjoint_identity) +interval ",
        r"^coverage:", r"^category", r"^op (add|matmul|tanh) ", r"^fan-out", r"^domain failure", r"^kink relu ",
        r"^-0 seed under pending", r"^NaN into opaque ", r"properties x carriers"])]),
    Block("failure-matmul", [
        Step("TAPECHECK_MUTANT=4 ./build-mutants/tapecheck run --property node_adjoint_identity --carrier rational "
             "--cases 100 --seed 1", keep=[(r"failed on", r"^rerun:")]),
        Step("TAPECHECK_MUTANT=4 ./build-mutants/tapecheck replay tapecheck-failures/node_adjoint_identity-rational-1.json",
             keep=[(r"^replay", r"^   0 ")])], needs="mutants"),
    Block("check-classifier", [Step("./build/tapecheck check examples/graphs/classifier.json --cases 20 --seed 1",
                                    keep=[r"^tapecheck check", r"^not checked on rational:", r"^property ",
                                          r"^ofGraph_toTape +double", r"properties x carriers"])]),
    Block("minigrad-bug", [
        Step("/tmp/minigrad/minigrad_check run --engine minigrad-bug --carrier rational "
             "--property compileChecked_backwardDenseFrom --cases 100 --seed 1",
             keep=[r"^minigrad_check run:", (r"failed on", r"^rerun:"), r"properties x carriers"]),
        Step("/tmp/minigrad/minigrad_check replay tapecheck-failures/compileChecked_backwardDenseFrom-rational-1.json",
             keep=[r"^replay", r"^  compileChecked"])], needs="minigrad"),
    Block("faulty-segfault", [
        Step("./build/tests/faulty_engines run --engine segfaults --carrier rational --property compileChecked_context "
             "--cases 200 --seed 1", keep=[r"^faulty_engines run:", (r"failed on", r"^rerun:"), r"properties x carriers"])]),
    Block("verdict-python", [Step(f'./build/tapecheck run --engine-cmd "{TINY}" --cases 100 --seed 1',
                                  keep=[r"^tapecheck run:", r"^$", r"^property ", PROPERTY_ROW,
                                        r"properties x carriers"])]),
    Block("verdict-bug", [Step(f'./build/tapecheck run --engine-cmd "{INDEPENDENT} --bug sigmoid_sign" --carrier float '
                               f'--cases 100 --seed 1', keep=[(r"failed on", r"^saved:"), r"properties x carriers"])]),
    Block("gtest-failure", [
        Step("TAPECHECK_SEED=1 /tmp/minigrad/minigrad_test "
             "--gtest_filter=minigrad_bug/compileChecked_backwardDenseFrom.rational",
             keep=[r"^\[ RUN", r"^tapecheck: ", (r": Failure$", r"^rerun:"), r"^\[  FAILED  \] minigrad_bug.*\)$"]),
        Step("TAPECHECK_REPLAY=tapecheck-failures/compileChecked_backwardDenseFrom-rational-1.json "
             "/tmp/minigrad/minigrad_test", keep=[r"^\[ RUN", r"^replay ", r"^  compileChecked", r"^\[  FAILED  \] tapecheck"])],
        needs="minigrad"),
    Block("pytest-items", [Step(pytest_bug("/tmp/tapecheck-pytest-items"), keep=[r"^conftest\.py::tapecheck::", r" failed, \d+ passed in "])]),
    Block("pytest-failure", [Step(pytest_bug("/tmp/tapecheck-pytest-failures"), keep=[
        # (not pytest's short summary: it cuts lines to the terminal's width, except under CI)
        (r"^compileChecked_backwardDenseFrom on rational FAILED", r"^\(tapecheck run:")])]),
    Block("verdict-cpp", [Step("/tmp/minigrad/minigrad_check run --engine minigrad --cases 100 --seed 1",
                               keep=[r"^minigrad_check run:", r"properties x carriers"])], needs="minigrad"),
    Block("tiny-rational", [Step(f'./build/tapecheck run --engine-cmd "{TINY}" --carrier rational --cases 200 --seed 1',
                                 keep=[r"^tapecheck run:", r"^$", r"^property ", PROPERTY_ROW,
                                       r"cases not compared", r"properties x carriers"])]),
    Block("tiny-survey", [
        Step(f'./build/tapecheck run --engine-cmd "{TINY}" --carrier double --cases 500 --seed 1 --survey',
             keep=[(r"^survey:", r"^$"), r"properties x carriers"]),
        Step(f'./build/tapecheck replay tapecheck-failures/compileChecked_backwardDenseFrom_eq_tape-double-1-1.json '
             f'--engine-cmd "{TINY}"')]),
    Block("tiny-exact", [Step(f'./build/tapecheck run --engine-cmd "{TINY}" --carrier double --domain exact '
                              f'--cases 1000 --seed 1', keep=[r"^exact_reference ", r"properties x carriers"])]),
    Block("scalar-bug", [Step(f'./build/tapecheck run --engine-cmd "{SCALAR_BUG}" --carrier rational --cases 200 '
                              f'--seed 1', keep=[(r"^compileChecked_backwardDenseFrom_eq_tape failed", r"^saved:"),
                                                 r"properties x carriers"])]),
    Block("saved-first", [
        Step(f'./build/tapecheck run --engine-cmd "{SCALAR_BUG}" --carrier rational '
             f'--property compileChecked_backwardDenseFrom --cases 100 --seed 1 --quiet', keep=[r"properties x carriers"]),
        Step(f'./build/tapecheck run --engine-cmd "{SCALAR_BUG}" --carrier rational '
             f'--property compileChecked_backwardDenseFrom --cases 1 --max-size 0 --seed 2',
             keep=[r"saved counterexamples? in ", r"^  (still fails|now passes|replay):", r"properties x carriers"])]),
    Block("exact-double", [Step("./build/tapecheck run --cases 100 --seed 1 --domain exact --carrier double", keep=[
        r"^tapecheck run:", r"^$", r"^property ", r"^(backwardDenseAllFrom_eq_dense|determinism|exact_reference) ",
        r"properties x carriers"])]),
    Block("reordered-survey", [Step("./build/examples/reordered_survey --cases 300", keep=[
        r"^survey of", r"^property ", r"^compileChecked_context ", r" seed +signed zero ",
        (r"^compileChecked_backwardDenseFrom +double .* NaN ", 4), r"^$", r"^exact domain", r"^exact_reference "])]),
    Block("mutants-matrix", [Step("./build-mutants/tapecheck mutants", keep=[r"^tapecheck mutants:", (r"^ id mutant", None)])],
          needs="mutants"),
    Block("readme-json", [], lang="json", file="examples/graphs/readme.json"),
    Block("grad-readme", [Step("./build/tapecheck grad examples/graphs/readme.json")]),
    Block("budget-refusal", [Step("./build/tapecheck grad tests/cli/data/budget/matmul1024x2.json",
                                  status=(2,))]),
    Block("budget-refusals", [Step(f"./build/tapecheck grad tests/cli/data/budget/{name}.json", status=(2,))
                              for name in ("broadcast22", "matmul1024x2", "squares60")]),
]

# What depends on the machine or the moment, masked on both sides before comparing.
MASKS = [
    (re.compile(r"(" + PROPERTY_ROW[1:] + r"\w*) +\d+(\.\d+)?$"), r"\1 <time>"),   # the `time ms` column
    (re.compile(r"(?<!timeout)(?<!timeout )[ \t]*\b\d+(\.\d+)?( ?)(ms|s)\b"), r" <time>\2\3"),  # 0.38 s, 85ms (not a timeout)
    (re.compile(r"\b\d+ cases/s\b"), "<rate> cases/s"),                             # 12523 cases/s
]


def mask(text):
    lines = []
    for line in text.splitlines():
        for pattern, replacement in MASKS:
            line = pattern.sub(replacement, line)
        lines.append(line)
    return lines


def select(lines, keep):
    """The lines the page shows; every run of left-out lines becomes one `...`."""
    if keep is None:
        return lines
    kept = [False] * len(lines)
    for rule in keep:
        if isinstance(rule, str):
            for i, line in enumerate(lines):
                kept[i] = kept[i] or re.search(rule, line) is not None
            continue
        start, stop = rule
        first = next((i for i, line in enumerate(lines) if re.search(start, line)), None)
        if first is None:
            continue
        last = len(lines) - 1
        if isinstance(stop, int):
            last = min(last, first + stop - 1)
        elif stop is not None:
            last = next((i for i in range(first + 1, len(lines)) if re.search(stop, lines[i])), last)
        for i in range(first, last + 1):
            kept[i] = True
    out = []
    for line, k in zip(lines, kept):
        if k:
            out.append(line)
        elif not out or out[-1] != "...":
            out.append("...")
    while out and out[-1] == "":
        out.pop()
    # A blank line on both sides of `...`, or `...` on both sides of a blank line, reads as one `...`.
    for pattern in (["", "...", ""], ["...", "", "..."]):
        i = 0
        while i + 3 <= len(out):
            if out[i:i + 3] == pattern:
                out[i:i + 3] = ["..."]
            else:
                i += 1
    return out


def scratch(build, mutants):
    """A directory that looks like the repository root, with `build` and `build-mutants` linked in."""
    work = Path(tempfile.mkdtemp(prefix="readme-examples-"))
    for entry in REPO.iterdir():
        if entry.name not in ("build", "build-mutants", ".git") and not entry.name.startswith("tapecheck-failures"):
            (work / entry.name).symlink_to(entry)
    (work / "build").symlink_to(build)
    if mutants is not None:
        (work / "build-mutants").symlink_to(mutants)
    return work


def minigrad(build):
    """examples/engine built against the package installed from BUILD, as the pages' commands do,
    under BUILD/readme-examples (incremental: a re-run only relinks). Returns the directory of
    minigrad_check, which the block's `/tmp/minigrad/` stands for."""
    base = build / "readme-examples"
    prefix, example = base / "prefix", base / "minigrad"
    for cmd in (["cmake", "--install", str(build), "--prefix", str(prefix)],
                ["cmake", "-S", str(REPO / "examples/engine"), "-B", str(example), f"-DCMAKE_PREFIX_PATH={prefix}"],
                ["cmake", "--build", str(example)]):
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{run.stdout}{run.stderr}")
    return example


def output_of(cmd, work, env):
    """What `cmd` prints (stdout and stderr) in `work`. scripts/mutants.sh has just run the whole
    mutation suite and names its output in TAPECHECK_README_MUTANTS_OUTPUT: that command is read
    from there rather than run a second time (it takes about a minute)."""
    saved = os.environ.get("TAPECHECK_README_MUTANTS_OUTPUT")
    if saved and cmd == "./build-mutants/tapecheck mutants":
        return Path(saved).read_text(), 0
    run = subprocess.run(["bash", "-c", cmd], cwd=work, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=600)
    return run.stdout, run.returncode


def shown_paths(output, aliases, work):
    """The output with the machine's paths as the page shows them: an alias's real directory as its
    alias (/tmp/minigrad/), the scratch directory and the repository as the relative paths they
    stand for (a GoogleTest failure names its source file and absolute replay paths)."""
    for shown, real in aliases.items():
        output = output.replace(real, shown)
    return output.replace(f"{work}/", "").replace(f"{REPO}/", "")


def generate(block, build, mutants):
    """The block's text as its page shows it, between the markers (fences included)."""
    if block.file:
        body = (REPO / block.file).read_text().rstrip("\n").splitlines()
        return "\n".join([f"```{block.lang}", *body, "```"])
    work = scratch(build, mutants)
    try:
        aliases = {}
        if block.needs == "minigrad":
            aliases["/tmp/minigrad/"] = str(minigrad(build)) + "/"
        env = {k: v for k, v in os.environ.items() if k != "TAPECHECK_MUTANT"}
        body = []
        for step in block.steps:
            cmd = step.cmd
            for shown, real in aliases.items():
                cmd = cmd.replace(shown, real)
            if step.prompt:
                body.append(f"$ {step.cmd}")
            output, status = output_of(cmd, work, env)
            output = shown_paths(output, aliases, work)
            if status not in step.status:
                raise RuntimeError(f"block {block.name}: `{step.cmd}` exited {status} (expected one of "
                                   f"{', '.join(map(str, step.status))}):\n{output}")
            body += select(output.rstrip("\n").splitlines(), step.keep)
        return "\n".join([f"```{block.lang}", *body, "```"])
    finally:
        shutil.rmtree(work, ignore_errors=True)


def parse(text, page="README.md"):
    """A page as a list of strings and (name, block text) pairs; checks the markers."""
    parts, current, name, inside = [], [], None, []
    for number, line in enumerate(text.split("\n"), 1):
        begin = BEGIN.match(line)
        if name is None and begin:
            parts.append("\n".join(current + [line]))
            current, name, inside = [], begin.group(1), []
        elif name is not None and line == END:
            parts.append((name, "\n".join(inside)))
            name, current = None, [line]
        elif name is not None:
            if BEGIN.match(line) or line.startswith("<!-- readme-example"):
                raise ValueError(f"{page}:{number}: a marker inside block {name}")
            inside.append(line)
        else:
            if line == END or line.startswith("<!-- readme-example"):
                raise ValueError(f"{page}:{number}: {line!r} outside a block")
            current.append(line)
    if name is not None:
        raise ValueError(f"{page}: block {name} has no {END}")
    parts.append("\n".join(current))
    return parts


def unmarked_output_blocks(text):
    """Line numbers of fenced blocks without a language outside the generated blocks, and not
    declared `<!-- not generated: ... -->` on the line before: command output that nothing checks."""
    found, inside, fence, previous = [], False, False, ""
    for number, line in enumerate(text.split("\n"), 1):
        if BEGIN.match(line) or line == "<!-- torch-survey:begin -->":
            inside = True
        elif line in (END, "<!-- torch-survey:end -->"):
            inside = False
        elif line.startswith("```"):
            if not fence and not inside and line.strip() == "```" and not NOT_GENERATED.match(previous):
                found.append(number)
            fence = not fence
        previous = line
    return found


def not_generated_blocks(text):
    """Line numbers and reasons of the fences declared `<!-- not generated: REASON -->`."""
    lines = text.split("\n")
    return [(i + 2, line[len("<!-- not generated: "):-len(" -->")]) for i, line in enumerate(lines[:-1])
            if NOT_GENERATED.match(line) and lines[i + 1].startswith("```")]


def read_pages():
    """Every page's text and parts, and the page of each block found; problems with the markers."""
    texts, parsed, where, problems = {}, {}, {}, []
    for path in pages():
        name = page_name(path)
        texts[name] = path.read_text()
        try:
            parsed[name] = parse(texts[name], name)
        except ValueError as error:
            problems.append(str(error))
            continue
        for part in parsed[name]:
            if isinstance(part, tuple):
                where.setdefault(part[0], []).append(name)
        problems += [f"{name}:{n}: an output block (``` without a language) that is not generated; put it between "
                     f"<!-- readme-example: NAME --> and {END} and give NAME its commands in BLOCKS (or, if it "
                     f"is not command output, give the fence a language such as text)"
                     for n in unmarked_output_blocks(texts[name])]
    defined = [b.name for b in BLOCKS]
    problems += [f"block {n} is in {', '.join(sorted(set(p)))} but not in scripts/readme_examples.py"
                 for n, p in where.items() if n not in defined]
    if len(parsed) == len(texts):  # a page whose markers do not parse hides its blocks: say only that
        problems += [f"block {n} is in no page (README.md, docs/*.md)" for n in defined if n not in where]
    problems += [f"block {n} appears {len(p)} times: in {', '.join(p)}" for n, p in where.items() if len(p) > 1]
    return texts, parsed, where, problems


def merge(current, out):
    """The fresh block, but with the page's own line wherever the two agree once masked, so an
    update changes only the lines whose results changed (their times come from this run)."""
    old, new = current.split("\n"), out.split("\n")
    merged = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, mask("\n".join(old)), mask("\n".join(new)),
                                                         autojunk=False).get_opcodes():
        merged += old[i1:i2] if tag == "equal" else new[j1:j2]
    return "\n".join(merged)


def main(argv):
    parser = argparse.ArgumentParser(description="The command-output blocks of README.md and docs/*.md, from a build "
                                     "(see the top of scripts/readme_examples.py)")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="compare every block with the build's output")
    mode.add_argument("--update", action="store_true", help="rewrite the blocks that differ")
    mode.add_argument("--list", action="store_true", help="list the blocks and their commands")
    mode.add_argument("--names", action="store_true",
                      help="the blocks' names, one per line, each followed by what it needs (ctest makes a test of each)")
    parser.add_argument("build", nargs="?", default="build", help="build directory (default: build)")
    parser.add_argument("mutants_build", nargs="?", default="build-mutants",
                        help="mutants build directory (default: build-mutants)")
    parser.add_argument("--only", help="comma-separated block names")
    parser.add_argument("--skip-mutants", action="store_true", help="skip (and say so) the blocks that need the mutants build")
    parser.add_argument("--torch-survey", action="store_true",
                        help="also run tests/engines/check_engines.py torch-survey (check or update)")
    try:
        opts = parser.parse_args(argv)
    except SystemExit as exit_:
        return 2 if exit_.code else 0
    if opts.names:
        for b in BLOCKS:
            print(f"{b.name} {b.needs or '-'}")
        return 0
    if opts.list:
        _, _, where, _ = read_pages()
        for b in BLOCKS:
            print(f"{b.name:18} {', '.join(where.get(b.name, ['(in no page)'])):22} "
                  f"{'[needs ' + b.needs + '] ' if b.needs else ''}{b.file or ' ; '.join(s.cmd for s in b.steps)}")
        for path in pages():
            for number, why in not_generated_blocks(path.read_text()):
                print(f"not generated      {page_name(path)}:{number}: {why}")
        return 0
    update = opts.update
    only = set(opts.only.split(",")) if opts.only else None
    build = (REPO / opts.build).resolve()
    mutants = (REPO / opts.mutants_build).resolve()
    if not (build / "tapecheck").is_file():
        print(f"readme-examples: no {build}/tapecheck; build first (bash scripts/build.sh)", file=sys.stderr)
        return 2
    have_mutants = (mutants / "tapecheck").is_file() and not opts.skip_mutants
    if have_mutants and (mutants / "tapecheck").stat().st_mtime < (build / "tapecheck").stat().st_mtime:
        print(f"readme-examples: note: {mutants}/tapecheck is older than {build}/tapecheck; "
              f"rebuild it (bash scripts/mutants.sh) if the mutant blocks differ")

    texts, parsed, where, problems = read_pages()
    defined = [b.name for b in BLOCKS]
    if only:
        problems += [f"--only: no block named {n}" for n in only if n not in defined]
    if problems:
        for p in problems:
            print(f"readme-examples: {p}", file=sys.stderr)
        return 2

    started, differ, fresh, todo = time.monotonic(), [], {}, []
    for block in BLOCKS:
        if only and block.name not in only:
            continue
        if block.needs == "mutants" and not have_mutants:
            why = "--skip-mutants (scripts/mutants.sh checks it)" if opts.skip_mutants else \
                f"no {mutants}/tapecheck (cmake -DTAPECHECK_MUTANTS=ON, or bash scripts/mutants.sh)"
            print(f"readme-examples: {block.name}: SKIPPED, needs the mutants build: {why}")
            continue
        todo.append(block)

    def timed(block):
        t0 = time.monotonic()
        try:
            return generate(block, build, mutants), None, time.monotonic() - t0
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            return None, error, time.monotonic() - t0

    # Two at a time: the slowest block (minigrad, a compile on its first run) overlaps the others.
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(timed, todo))
    for block, (out, error, seconds) in zip(todo, results):
        if error is not None:
            print(f"readme-examples: {block.name}: could not run: {error}", file=sys.stderr)
            differ.append(block.name)
            continue
        page = where[block.name][0]
        current = next(p[1] for p in parsed[page] if isinstance(p, tuple) and p[0] == block.name)
        same = mask(current) == mask(out)
        print(f"readme-examples: {block.name}: {'ok' if same else 'DIFFERS'} ({seconds:.1f} s)")
        if not same:
            differ.append(block.name)
            fresh[block.name] = merge(current, out)
            if not update:
                sys.stdout.writelines(difflib.unified_diff(
                    [l + "\n" for l in mask(current)], [l + "\n" for l in mask(out)],
                    f"{page}, block {block.name}", f"{block.name}, as the build in {build} prints it"))

    if opts.torch_survey:
        cmd = [PY, str(REPO / "tests/engines/check_engines.py"), str(build / "tapecheck"), "torch-survey"]
        if update:
            cmd.append("--update")
        status = subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode
        print(f"readme-examples: torch-survey (tests/engines/check_engines.py): {'ok' if status == 0 else 'DIFFERS'}")
        if status != 0:
            differ.append("torch-survey")
    else:
        print("readme-examples: torch-survey: not run here (ctest PythonEngines.torch-survey.table checks it; "
              "--torch-survey runs it too)")

    elapsed = time.monotonic() - started
    if update:
        if fresh:
            for page in sorted({where[n][0] for n in fresh}):
                path = REPO / page
                parts = parse(path.read_text(), page)  # check_engines.py may have rewritten its block
                path.write_text("\n".join(p if isinstance(p, str) else fresh.get(p[0], p[1]) for p in parts))
                print(f"readme-examples: rewrote {', '.join(n for n in fresh if where[n][0] == page)} in {page}")
            print(f"readme-examples: {len(fresh)} block(s) rewritten ({elapsed:.1f} s)")
        else:
            print(f"readme-examples: the pages already match ({elapsed:.1f} s)")
        return 1 if set(differ) - set(fresh) - {"torch-survey"} else 0
    if differ:
        print(f"readme-examples: {len(differ)} block(s) differ from the build: {', '.join(differ)}; "
              f"bash scripts/readme-examples.sh --update rewrites them ({elapsed:.1f} s)")
        return 1
    print(f"readme-examples: the pages match the build ({elapsed:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
