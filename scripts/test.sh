#!/usr/bin/env bash
# From a fresh Debian machine: install what is needed, build, run every test suite, then the
# mutation tests (a second build with the mutation switches; every mutant must be killed), then the
# tests again under AddressSanitizer and UndefinedBehaviorSanitizer and the two fuzzers, 30 s each side by side (a
# third build, with Clang 16: scripts/sanitize.sh, scripts/fuzz.sh). Each stage prints its time.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
stage() {  # stage NAME COMMAND...: runs it, then prints how long it took
  local name="$1" begin=$SECONDS
  shift
  "$@"
  echo "test: $name took $((SECONDS - begin)) s ($((SECONDS - started)) s in all)"
}
# One test more than cores: some tests wait (an engine's hang, its timeout, a child process), and
# with -j "$(nproc)" the cores stood idle for about a fifth of the stage (CPU 496 s in 306 s on 2).
run_ctest() { (cd build && ctest --output-on-failure -j "$(($(nproc) + 1))"); }
stage setup bash scripts/setup.sh --test
stage build bash scripts/build.sh
stage ctest run_ctest
stage mutants bash scripts/mutants.sh
stage sanitize bash scripts/sanitize.sh
stage fuzz bash scripts/fuzz.sh 60
