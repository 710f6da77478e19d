#!/usr/bin/env bash
# From a fresh Debian machine: install what is needed, build, run every test suite, then the
# mutation tests (a second build with the mutation switches; every mutant must be killed), then the
# tests again under AddressSanitizer and UndefinedBehaviorSanitizer and the case fuzzer for 60 s (a
# third build, with Clang 16: scripts/sanitize.sh, scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
bash scripts/build.sh
(cd build && ctest --output-on-failure -j "$(nproc)")
bash scripts/mutants.sh
bash scripts/sanitize.sh
bash scripts/fuzz.sh 60
