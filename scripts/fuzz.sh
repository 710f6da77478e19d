#!/usr/bin/env bash
# Runs the two fuzzers (tests/fuzz/README.md) for a bounded time, under AddressSanitizer and
# UndefinedBehaviorSanitizer, half the time each, side by side: case_fuzzer (libFuzzer on the loader, the first
# compile and a dense backward of every carrier) and protocol_fuzzer (an engine's output, a hello
# and answers, read by the engine protocol's reader for a fixed case on every carrier).
#   bash scripts/fuzz.sh [SECONDS]        (default 60 of fuzzing in all, SECONDS/2 of wall-clock time; the
#                                          test command runs 60)
# Builds ./build-sanitize first if needed (scripts/sanitize.sh --build-only). The seeds are the files
# that tests/fuzz/seed_dirs.txt and tests/fuzz/protocol_seed_dirs.txt name; the dictionaries are
# tests/fuzz/case.dict and tests/fuzz/protocol.dict. An input that makes a fuzzer report is saved
# under build-sanitize/fuzz-findings/ and the script fails; once fixed, copy it to
# tests/fuzz/findings/ (case_fuzzer) or tests/fuzz/protocol/ (protocol_fuzzer), where ctest replays
# it (FuzzCorpus.HasNoFinding, ProtocolFuzzCorpus.HasNoFinding).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: SECONDS must be a whole number, not '$seconds'" >&2; exit 2; }
bash scripts/sanitize.sh --build-only --target case_fuzzer protocol_fuzzer

# -timeout: a watchdog, not a measurement. Every case input is loaded under a budget of about 0.1 s
# of estimated work (tests/fuzz/case_fuzz.h), so one that runs for 10 s shows an estimate off by 100x;
# an answer is read in time linear in its bytes.
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# fuzz NAME SEED_LIST DICTIONARY SECONDS: runs build-sanitize/tests/NAME, prints one line of what it did.
fuzz() {
  local name="$1" seedList="$2" dictionary="$3" time="$4"
  local work="build-sanitize/fuzz/$name"
  rm -rf "$work"
  mkdir -p "$work/seeds" "$work/corpus" build-sanitize/fuzz-findings
  while read -r pattern; do
    for file in $pattern; do  # DIR/* or DIR/*.EXT
      if [ -f "$file" ]; then cp "$file" "$work/seeds/$(echo "$file" | tr / _)"; fi
    done
  done < "$seedList"
  local status=0
  timeout $((time + 300)) "./build-sanitize/tests/$name" "$work/corpus" "$work/seeds" \
    -max_total_time="$time" -timeout=10 -rss_limit_mb=2048 -max_len=16384 -dict="$dictionary" \
    -artifact_prefix="build-sanitize/fuzz-findings/$name-" -print_final_stats=1 > "$work/log" 2>&1 || status=$?
  # The last status line ("#N DONE cov: C ft: F corp: K/S ...") and the final statistics.
  local last executions coverage features corpus counters
  last="$(grep -E '^#[0-9]+' "$work/log" | tail -n 1 || true)"
  executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")"
  coverage="$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')"
  features="$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')"
  corpus="$(echo "$last" | sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p')"
  counters="$(sed -n 's/.*(\([0-9]*\) inline 8-bit counters).*/\1/p' "$work/log" | head -n 1)"
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$work/log"
    echo "fuzz: $name: FINDING after ${executions:-?} executions (exit $status): the input is in build-sanitize/fuzz-findings/;"
    echo "      fix it, then copy the input where ctest replays it (tests/fuzz/README.md)"
    return 1
  fi
  echo "fuzz: $name: ${executions:-?} executions in $time s, coverage ${coverage:-?} of ${counters:-?} edges," \
       "${features:-?} features, corpus $(ls "$work/seeds" | wc -l) seeds -> ${corpus:-?} inputs, no finding"
}

# Side by side, one core each (libFuzzer runs one process on one core): the stage takes half the
# time it took one after the other, for the same executions. Each prints to its own file; the lines
# are shown in a fixed order.
mkdir -p build-sanitize/fuzz
fuzz case_fuzzer tests/fuzz/seed_dirs.txt tests/fuzz/case.dict $((seconds - seconds / 2)) \
  > build-sanitize/fuzz/case_fuzzer.out 2>&1 &
case_pid=$!
fuzz protocol_fuzzer tests/fuzz/protocol_seed_dirs.txt tests/fuzz/protocol.dict $((seconds / 2)) \
  > build-sanitize/fuzz/protocol_fuzzer.out 2>&1 &
protocol_pid=$!
status=0
wait "$case_pid" || status=1
wait "$protocol_pid" || status=1
cat build-sanitize/fuzz/case_fuzzer.out build-sanitize/fuzz/protocol_fuzzer.out
exit "$status"
