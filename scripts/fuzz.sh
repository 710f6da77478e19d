#!/usr/bin/env bash
# Runs the case fuzzer (tests/fuzz/README.md) for a bounded time: libFuzzer on the loader, the first
# compile and a dense backward of every carrier, under AddressSanitizer and UndefinedBehaviorSanitizer.
#   bash scripts/fuzz.sh [SECONDS]        (default 60; the test command runs it for 60 s)
# Builds ./build-sanitize first if needed (scripts/sanitize.sh --build-only). The seeds are the files
# that tests/fuzz/seed_dirs.txt names; the dictionary is tests/fuzz/case.dict. An input
# that makes the fuzzer report is saved under build-sanitize/fuzz-findings/ and the script fails; once
# fixed, copy it to tests/fuzz/findings/, where ctest replays it (FuzzCorpus.HasNoFinding).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: SECONDS must be a whole number, not '$seconds'" >&2; exit 2; }
bash scripts/sanitize.sh --build-only --target case_fuzzer

work=build-sanitize/fuzz
rm -rf "$work/seeds" "$work/corpus"
mkdir -p "$work/seeds" "$work/corpus" build-sanitize/fuzz-findings
while read -r pattern; do
  for file in $pattern; do  # DIR/* or DIR/*.EXT
    if [ -f "$file" ]; then cp "$file" "$work/seeds/$(echo "$file" | tr / _)"; fi
  done
done < tests/fuzz/seed_dirs.txt

# -timeout: a watchdog, not a measurement. Every input is loaded under a budget of about 0.1 s of
# estimated work (tests/fuzz/case_fuzz.h), so one that runs for 10 s shows an estimate off by 100x.
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
status=0
timeout $((seconds + 300)) ./build-sanitize/tests/case_fuzzer "$work/corpus" "$work/seeds" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 -dict=tests/fuzz/case.dict \
  -artifact_prefix=build-sanitize/fuzz-findings/ -print_final_stats=1 > "$work/log" 2>&1 || status=$?

# The last status line ("#N DONE cov: C ft: F corp: K/S ...") and the final statistics.
last="$(grep -E '^#[0-9]+' "$work/log" | tail -n 1 || true)"
executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")"
coverage="$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')"
features="$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')"
corpus="$(echo "$last" | sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p')"
counters="$(sed -n 's/.*(\([0-9]*\) inline 8-bit counters).*/\1/p' "$work/log" | head -n 1)"
if [ "$status" -ne 0 ]; then
  tail -n 40 "$work/log"
  echo "fuzz: FINDING after ${executions:-?} executions (exit $status): the input is in build-sanitize/fuzz-findings/;"
  echo "      fix it, then copy the input to tests/fuzz/findings/ so that ctest replays it"
  exit 1
fi
echo "fuzz: ${executions:-?} executions in $seconds s, coverage ${coverage:-?} of ${counters:-?} edges, ${features:-?} features," \
     "corpus $(ls "$work/seeds" | wc -l) seeds -> ${corpus:-?} inputs, no finding"
