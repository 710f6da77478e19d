#!/usr/bin/env bash
# Mutation testing in CI: builds tapecheck with its mutation switches in ./build-mutants and runs
# the default property suite once per mutant (100 cases per property, 300 s at most per mutant,
# 30 minutes at most in all; about a minute in practice). Fails if a mutant survives or fewer than 30
# are known, or if the blocks made with this build (the kill matrix of docs/mutants.md and the
# README's matmul failure) are not what it prints (scripts/readme-examples.sh; ctest checks the others).
set -euo pipefail
cd "$(dirname "$0")/.."
# At -O1: the 72 runs took as long as at -O2 (172 s, 322 s of CPU, on 2 cores) and the build 178 s, not 240
# (bench/RESULTS.md, "The mutants build at -O1"); the kill matrix is the same.
bash scripts/configure.sh build-mutants -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1" -DTAPECHECK_MUTANTS=ON \
  -DTAPECHECK_BUILD_TESTS=OFF
cmake --build build-mutants -j "$(nproc)" --target tapecheck
status=0
# Once, in the text format: its kill matrix is also the block of docs/mutants.md, checked below from this file.
timeout 1800 ./build-mutants/tapecheck mutants > build-mutants/mutants.txt 2>&1 || status=$?
grep -E "SURVIVED|timed out" build-mutants/mutants.txt || true  # survivors
summary="$(tail -n 1 build-mutants/mutants.txt)"
echo "mutants: exit $status, $summary"
python3 - "$summary" <<'PY'
import re, sys
m = re.fullmatch(r"(\d+) mutants, (\d+) killed.*", sys.argv[1])
assert m, f"no summary line: {sys.argv[1]!r}"
total, killed = int(m.group(1)), int(m.group(2))
assert total >= 30, f"only {total} mutants"
assert killed == total, f"{total - killed} mutants survived"
PY
[ "$status" -eq 0 ] || exit "$status"
# The shrinker checks its own work (docs/semantics.md §3.7): with the mutant
# shrinker-takes-passing-candidate (a passing candidate taken), a real failure of an engine is reported as tapecheck's internal error, exit 2, not saved
# as a counterexample that replays green.
shrinker_status=0
rm -rf build-mutants/shrinker-check  # a fresh folder: a run judges the counterexamples saved there first
TAPECHECK_MUTANT=shrinker-takes-passing-candidate ./build-mutants/tapecheck run --quiet --cases 100 --seed 1 --carrier rational \
  --property compileChecked_backwardDenseFrom --save-failures build-mutants/shrinker-check \
  --engine-cmd "/usr/bin/python3 tests/engines/independent/engine.py --bug mean_nodiv" \
  > build-mutants/shrinker-check.txt 2>&1 || shrinker_status=$?
if [ "$shrinker_status" -ne 2 ] ||
   ! grep -q "internal error: shrinking compileChecked_backwardDenseFrom on rational: the shrinker returned a case its predicate did not accept" build-mutants/shrinker-check.txt; then
  echo "mutants: the shrinker's self-check did not report shrinker-takes-passing-candidate (exit $shrinker_status):"
  cat build-mutants/shrinker-check.txt
  exit 1
fi
echo "mutants: the shrinker's self-check reports shrinker-takes-passing-candidate as an internal error (exit 2)"
# A TAPECHECK_MUTANT that names no mutant stops the program: a run would otherwise check the
# unmutated code and look like a killed mutant's.
bogus_status=0
TAPECHECK_MUTANT=no-such-mutant ./build-mutants/tapecheck run --quiet --cases 1 > build-mutants/bogus.txt 2>&1 || bogus_status=$?
if [ "$bogus_status" -ne 2 ] || ! grep -q "TAPECHECK_MUTANT=no-such-mutant names no mutant" build-mutants/bogus.txt; then
  echo "mutants: TAPECHECK_MUTANT=no-such-mutant was not refused (exit $bogus_status):"
  cat build-mutants/bogus.txt
  exit 1
fi
TAPECHECK_README_MUTANTS_OUTPUT=build-mutants/mutants.txt \
  /usr/bin/python3 scripts/readme_examples.py --check build build-mutants --only failure-matmul,mutants-matrix
