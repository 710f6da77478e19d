#!/usr/bin/env bash
# Mutation testing in CI: builds tapecheck with its mutation switches in ./build-mutants and runs
# the default property suite once per mutant (100 cases per property, 120 s at most per mutant,
# 30 minutes at most in all; about 15 s in practice). Fails if a mutant survives or fewer than 30
# are known, or if README.md's blocks made with this build (the kill matrix and the matmul
# failure) are not what it prints (scripts/readme-examples.sh; ctest checks the others).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-mutants -DCMAKE_BUILD_TYPE=Release -DTAPECHECK_MUTANTS=ON -DTAPECHECK_BUILD_TESTS=OFF >/dev/null
cmake --build build-mutants -j "$(nproc)" --target tapecheck
status=0
timeout 1800 ./build-mutants/tapecheck mutants --format json --timeout 120 > build-mutants/mutants.json || status=$?
grep -v '"outcome":"killed"' build-mutants/mutants.json || true  # survivors and the summary line
summary="$(tail -n 1 build-mutants/mutants.json)"
echo "mutants: exit $status, $summary"
python3 - "$summary" <<'PY'
import json, sys
s = json.loads(sys.argv[1])
assert s["total"] >= 30, f"only {s['total']} mutants"
assert s["killed"] == s["total"], f"{s['total'] - s['killed']} mutants survived"
PY
[ "$status" -eq 0 ] || exit "$status"
/usr/bin/python3 scripts/readme_examples.py --check build build-mutants --only failure-matmul,mutants-matrix
