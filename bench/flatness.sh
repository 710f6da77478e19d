#!/usr/bin/env bash
# Forward time per multiply-add of the MLP workload (depth 8) at widths 16, 64, 256 and 512, for one
# or more tapecheck binaries side by side: ROUNDS (default 5) interleaved rounds of
# `bench mlp --repeat 501`, the least median per width, and max / min over the widths (issue 15's
# flatness target: at most 2). The least of several processes, because on this machine a whole
# process now and then runs 50% slower than the others.
#   [ROUNDS=N] bench/flatness.sh build/tapecheck [/path/to/other/tapecheck ...]
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: bench/flatness.sh TAPECHECK [TAPECHECK ...]" >&2; exit 2; }
for round in $(seq "${ROUNDS:-5}"); do
  for binary in "$@"; do
    for width in 16 64 256 512; do
      echo "$binary $("$binary" bench mlp --width "$width" --depth 8 --repeat 501)"
    done
  done
done | python3 -c '
import collections, json, sys
least = collections.defaultdict(lambda: float("inf"))
for line in sys.stdin:
    binary, row = line.split(" ", 1)
    row = json.loads(row)
    least[binary, row["width"]] = min(least[binary, row["width"]], row["forward_ns_per_mac"])
for binary in sys.argv[1:]:
    widths = {w: v for (b, w), v in least.items() if b == binary}
    shown = " ".join(f"{w}:{widths[w]:.3f}" for w in sorted(widths))
    print(f"{binary}  {shown}  max/min {max(widths.values()) / min(widths.values()):.2f}")
' "$@"
