#!/usr/bin/env bash
# The CMake package as another project uses it: install tapecheck to a fresh prefix, build
# examples/engine (minigrad on tapecheck::main) against it from a clean directory, check that
# minigrad passes, that its buggy twin gives a shrunk counterexample, and that the saved file
# replays on the engine that failed (and holds on the correct one). Three steps, three ctests (the
# compile alone takes most of the time; the build step also builds minigrad_test, the example under
# GoogleTest, which gtest_example.sh checks, and examples/reordered_engine with its author's
# floating-point flags, which engine_flags.sh checks):
#   external_example.sh configure WORK BUILD_DIR SOURCE_DIR   installs and configures into WORK (made afresh)
#   external_example.sh build WORK                            compiles what the configure step set up
#   external_example.sh check WORK                            runs what the build step made
set -euo pipefail
step="$1" work="$2"
if [ "$step" = configure ]; then
  build="$3" source="$4"
  rm -rf "$work"
  mkdir -p "$work"
  cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
  cmake -S "$source/examples/engine" -B "$work/example" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
  # The reordered engine with its author's flags (engine_flags.sh).
  cmake -S "$source/examples/reordered_engine" -B "$work/reordered" -DCMAKE_PREFIX_PATH="$work/prefix" \
    > "$work/configure-reordered.log"
  echo "external example: configured on the installed tapecheck::main (minigrad, and the reordered engine with its own flags)"
  exit 0
fi
if [ "$step" = build ]; then
  [ -f "$work/example/CMakeCache.txt" ] || { echo "external_example.sh: run the configure step first" >&2; exit 2; }
  cmake --build "$work/example" > "$work/build.log"
  cmake --build "$work/reordered" > "$work/build-reordered.log"
  echo "external example: minigrad_check and reordered_fma_check built on the installed tapecheck::main$([ -x "$work/example/minigrad_test" ] && echo ", minigrad_test on tapecheck::gtest")"
  exit 0
fi
[ "$step" = check ] || { echo "external_example.sh: the steps are configure, build and check, not '$step'" >&2; exit 2; }
[ -x "$work/example/minigrad_check" ] || { echo "external_example.sh: run the build step first" >&2; exit 2; }
rm -rf "$work/failures"
check="$work/example/minigrad_check"

source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

expect_status 0 "$work/clean.txt" "$check" run --cases 50 --seed 1 --quiet
expect_text "$work/clean.txt" "all passed"

expect_status 1 "$work/bug.txt" "$check" run --engine minigrad-bug --carrier rational --cases 50 --seed 1 \
  --property compileChecked_backwardDenseFrom --save-failures "$work/failures"
expect_text "$work/bug.txt" "engine minigrad-bug \(isolated\)"
expect_text "$work/bug.txt" "shrunk in [0-9]+ steps? from [0-9]+ to [123] nodes"
saved="$work/failures/compileChecked_backwardDenseFrom-rational-1.json"
expect_text "$work/bug.txt" "replay: minigrad_check replay $saved"

expect_status 1 "$work/replay.txt" "$check" replay "$saved"
expect_text "$work/replay.txt" "with engine minigrad-bug \(isolated\)"
expect_text "$work/replay.txt" "compileChecked_backwardDenseFrom +FAIL"
expect_status 0 "$work/replay-correct.txt" "$check" replay "$saved" --engine minigrad
expect_text "$work/replay-correct.txt" "compileChecked_backwardDenseFrom +pass"
# tapecheck itself does not know the engine, and says so rather than replaying on another.
expect_status 2 "$work/replay-tapecheck.txt" "$work/prefix/bin/tapecheck" replay "$saved"
expect_text "$work/replay-tapecheck.txt" "no engine named 'minigrad-bug'"
echo "external example: builds on tapecheck::main, passes, its bug shrinks, and the saved case replays on its engine"
