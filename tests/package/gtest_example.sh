#!/usr/bin/env bash
# tapecheck under GoogleTest on the installed package (integrations/gtest.h, docs/gtest.md):
# examples/engine's minigrad_test, which the ExternalExample steps build (external_example.sh
# configure and build, into WORK). Checks that ctest lists one test per property × carrier of each
# engine's verdict (as many as `run` has rows); that the correct engine's tests pass and print their
# seed; that --gtest_filter and GoogleTest's sharding select tests; that a bad TAPECHECK_ variable
# fails the test naming it; and that the buggy engine's test fails with the verdict, the listing, a
# saved file and a replay command which, run as printed, reproduces the failure.
#   gtest_example.sh WORK
set -euo pipefail
work="$1"
example="$work/example"
tests="$example/minigrad_test" check="$example/minigrad_check"
[ -x "$tests" ] || { echo "gtest_example.sh: no $tests: was tapecheck installed with GoogleTest (tapecheck::gtest)?"; exit 1; }
out="$work/gtest"
rm -rf "$out"
mkdir -p "$out"

source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

# The rows of each engine's verdict, as `run` counts them (a shard past the rows names the count
# without running anything).
rows_of() {
  { "$check" run --engine "$1" --shard 999/1000 2>&1 || true; } | sed -nE 's/.*the run has ([0-9]+) rows?$/\1/p'
}
rows=$(rows_of minigrad)
bug_rows=$(rows_of minigrad-bug)
[ -n "$rows" ] && [ "$rows" -gt 0 ] || { echo "could not count the rows of minigrad's verdict"; exit 1; }

# One ctest per property × carrier, named ENGINE/PROPERTY.CARRIER.
(cd "$example" && ctest -N) > "$out/list.txt"
expect_text "$out/list.txt" "Total Tests: $((rows + bug_rows))\$"
expect_equal "ctest tests of minigrad" "$rows" "$(grep -cE ': minigrad/[A-Za-z0-9_]+\.[a-z_]+$' "$out/list.txt")"
expect_equal "ctest tests of minigrad-bug" "$bug_rows" "$(grep -cE ': minigrad_bug/[A-Za-z0-9_]+\.[a-z_]+$' "$out/list.txt")"
expect_text "$out/list.txt" ": minigrad_bug/compileChecked_backwardDenseFrom\.rational$"

# The correct engine passes under ctest.
expect_status 0 "$out/pass.txt" env -C "$example" TAPECHECK_CASES=30 TAPECHECK_SEED=1 TAPECHECK_SAVE_DIR="$out/failures" \
  ctest -R '^minigrad/' --output-on-failure
expect_text "$out/pass.txt" "100% tests passed, 0 tests failed out of $rows\$"

# A test prints and records its seed; --gtest_filter picks it.
one='minigrad/compileChecked_backwardDenseFrom.rational'
expect_status 0 "$out/seed.txt" env TAPECHECK_CASES=10 TAPECHECK_SEED=7 "$tests" --gtest_filter="$one" \
  --gtest_output="xml:$out/seed.xml"
expect_text "$out/seed.txt" "seed 7 \(TAPECHECK_SEED=7 repeats it\)"
expect_text "$out/seed.txt" "\[  PASSED  \] 1 test\."
expect_text "$out/seed.xml" 'name="tapecheck_seed" value="7"'

# GoogleTest's sharding splits the tests between the shards.
rational=$("$tests" --gtest_list_tests --gtest_filter='minigrad/*.rational' | grep -c '^  rational$')
[ "$rational" -ge 2 ] || { echo "expected at least 2 rational tests of minigrad, got $rational"; exit 1; }
for shard in 0 1; do
  expect_status 0 "$out/shard$shard.txt" env TAPECHECK_CASES=30 TAPECHECK_SEED=1 GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$shard \
    "$tests" --gtest_filter='minigrad/*.rational'
done
ran0=$(grep -c '^\[ RUN      \]' "$out/shard0.txt") ran1=$(grep -c '^\[ RUN      \]' "$out/shard1.txt")
expect_equal "tests run by the two shards" "$rational" "$((ran0 + ran1))"
[ "$ran0" -gt 0 ] && [ "$ran1" -gt 0 ] || { echo "a shard ran no test: $ran0 and $ran1"; exit 1; }

# A bad variable fails the test, naming it.
expect_status 1 "$out/bad.txt" env TAPECHECK_CASES=lots "$tests" --gtest_filter="$one"
expect_text "$out/bad.txt" "tapecheck: TAPECHECK_CASES must be a whole number from 1 to 1000000, got 'lots'"
expect_status 1 "$out/bad-domain.txt" env TAPECHECK_DOMAIN=every "$tests" --gtest_filter="$one"
expect_text "$out/bad-domain.txt" "TAPECHECK_DOMAIN must be default or exact"

# The buggy engine fails with the verdict, the shrunk listing, the saved file and the replay command.
bug='minigrad_bug/compileChecked_backwardDenseFrom.rational'
expect_status 1 "$out/bug.txt" env TAPECHECK_CASES=50 TAPECHECK_SEED=1 TAPECHECK_SAVE_DIR="$out/failures" \
  "$tests" --gtest_filter="$bug"
expect_text "$out/bug.txt" "compileChecked_backwardDenseFrom failed on rational with engine minigrad-bug \(shrunk in [0-9]+ steps? from [0-9]+ to [123] nodes\):"
expect_text "$out/bug.txt" "^ +minigrad-bug +\[.*<- differs$"  # the listing
saved="$out/failures/compileChecked_backwardDenseFrom-rational-1.json"
expect_text "$out/bug.txt" "^saved: $saved\$"
[ -f "$saved" ] || { echo "the saved file $saved does not exist"; exit 1; }
expect_text "$out/bug.txt" "^replay: TAPECHECK_REPLAY=$saved $tests\$"
expect_text "$out/bug.txt" "^rerun:  TAPECHECK_SEED=1 TAPECHECK_CASES=50 TAPECHECK_MAX_SIZE=100 $tests --gtest_filter=$bug\$"
expect_text "$out/bug.txt" "\[  FAILED  \] $bug"
expect_text "$out/bug.txt" "/minigrad_test\.cpp:[0-9]+: Failure$"  # at the macro's line, not in tapecheck's library

# The replay command, run as printed, replays the saved case on the engine that failed: it fails.
replay=$(sed -n 's/^replay: //p' "$out/bug.txt")
expect_status 1 "$out/replay.txt" bash -c "$replay"
expect_text "$out/replay.txt" "with engine minigrad-bug \(isolated\)"
expect_text "$out/replay.txt" "compileChecked_backwardDenseFrom +FAIL"
expect_text "$out/replay.txt" "\[  FAILED  \] tapecheck\.replay"

# The failure database: run again on one small case, which does not find the bug, the test first judges the
# counterexample saved for its row, and fails on it with the command that replays it.
expect_status 0 "$out/small.txt" env TAPECHECK_CASES=1 TAPECHECK_MAX_SIZE=0 TAPECHECK_SEED=1 TAPECHECK_REPLAY_SAVED=0 \
  TAPECHECK_SAVE_DIR="$out/failures" "$tests" --gtest_filter="$bug"
expect_status 1 "$out/saved.txt" env TAPECHECK_CASES=1 TAPECHECK_MAX_SIZE=0 TAPECHECK_SEED=1 \
  TAPECHECK_SAVE_DIR="$out/failures" "$tests" --gtest_filter="$bug"
expect_text "$out/saved.txt" "^tapecheck: 1 saved counterexample in $out/failures: 1 still fails\$"
expect_text "$out/saved.txt" "^  still fails: $saved \(compileChecked_backwardDenseFrom on rational\): "
expect_text "$out/saved.txt" "^  replay: TAPECHECK_REPLAY=$saved $tests\$"
expect_text "$out/saved.txt" "\[  FAILED  \] $bug"

# And under ctest, the buggy engine's test fails.
expect_status 8 "$out/bug-ctest.txt" env -C "$example" TAPECHECK_CASES=50 TAPECHECK_SEED=1 TAPECHECK_SAVE_DIR="$out/failures" \
  ctest -R "^$bug\$" --output-on-failure
expect_text "$out/bug-ctest.txt" "0% tests passed, 1 tests failed out of 1"
echo "gtest example: $((rows + bug_rows)) tests listed, minigrad's $rows pass, minigrad-bug's fails with a replayable counterexample"
