#!/usr/bin/env bash
# An engine keeps its author's floating-point flags (issue 44 item 9): examples/reordered_engine's
# reordered_fma_check is the reordered engine on the installed tapecheck::main, compiled with
# -ffp-contract=fast and -mfma (the ExternalExample steps configure and build it into WORK). Checks
#   1. that the installed package exports none of tapecheck's floating-point flags (only the language
#      level its headers need, C++23 as a minimum);
#   2. that the engine's kernels, in the linked program, are fused multiply-adds (else the flags did
#      not reach it, and the verdict below would prove nothing);
#   3. that none of tapecheck's own functions (those its installed libraries define) is linked in a
#      copy with fused multiply-adds: an engine's translation units must not compile tapecheck's
#      arithmetic with the engine's flags (the linker keeps one copy of a shared inline function, so
#      one compiled with contraction would change tapecheck's evaluation too);
#   4. that the engine passes the engine verdict at seeds 1-3: the accuracy budgets cover FMA, and the
#      exact domain's results, exact either way, are the same bits.
#   engine_flags.sh WORK
set -euo pipefail
work="$1"
program="$work/reordered/reordered_fma_check"
[ -x "$program" ] || { echo "engine_flags.sh: run the ExternalExample build step first" >&2; exit 2; }
libraries=("$work"/prefix/lib/*.a)
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

exported=$(grep -lE -- "-ffp-contract|fast-math" "$work"/prefix/lib/cmake/tapecheck/*.cmake || true)
[ -z "$exported" ] || { echo "the installed package imposes floating-point flags on its users: $exported"; grep -hE -- "-ffp-contract|fast-math" $exported; exit 1; }

if ! grep -qw fma /proc/cpuinfo; then
  echo "this processor has no x86 FMA instructions: reordered_fma_check cannot run here"
  exit 77  # SKIP_RETURN_CODE: ctest reports the test as skipped, with this line
fi

# The language level is the one thing the headers require of their users, as a minimum.
expect_text "$work/prefix/lib/cmake/tapecheck/tapecheckTargets.cmake" 'INTERFACE_COMPILE_FEATURES "cxx_std_23"'

# Functions of the program whose code holds a fused multiply-add (vfmadd, vfmsub, vfnmadd, vfnmsub).
objdump -d --no-show-raw-insn "$program" | awk '
  /^[0-9a-f]+ <.*>:$/ { name = substr($0, index($0, "<") + 1); sub(/>:$/, "", name); next }
  /\tvf(n)?m(add|sub)[0-9]/ { if (name != "") { print name; name = "" } }' | sort -u > "$scratch/fused.txt"

engine_fused=$(c++filt < "$scratch/fused.txt" | grep -c "reordered::" || true)
[ "$engine_fused" -gt 0 ] || { echo "no function of the reordered engine holds a fused multiply-add: were -ffp-contract=fast -mfma given to reordered_fma_check?"; exit 1; }

nm --defined-only "${libraries[@]}" 2>/dev/null | awk 'NF == 3 && $2 ~ /[TtWw]/ { print $3 }' | sort -u > "$scratch/tapecheck.txt"
comm -12 "$scratch/fused.txt" "$scratch/tapecheck.txt" > "$scratch/taken.txt"
if [ -s "$scratch/taken.txt" ]; then
  echo "tapecheck's own functions linked in a copy compiled with the engine's flags (fused multiply-adds):"
  c++filt < "$scratch/taken.txt" | head -20
  exit 1
fi

for seed in 1 2 3; do
  expect_status 0 "$scratch/run-$seed.txt" "$program" run --seed "$seed"
  expect_text "$scratch/run-$seed.txt" "all passed"
  for carrier in double float; do
    expect_text "$scratch/run-$seed.txt" "^accuracy +$carrier +100 +(9[0-9]|100) .* pass"
    expect_text "$scratch/run-$seed.txt" "^exact_reference +$carrier \\(exact\\) +100 +100 .* pass"
  done
done
echo "reordered_fma_check: $engine_fused of the engine's functions use fused multiply-adds, none of tapecheck's; the engine verdict passes at seeds 1-3"
