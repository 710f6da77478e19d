#!/usr/bin/env bash
# Runs every benchmark of bench/RESULTS.md side by side in one go and prints JSON lines.
# Usage: bash bench/run.sh [BUILD_DIR]
# libtorch's side runs when BUILD_DIR/torch_bench exists (built when CMake finds libtorch-dev:
# bash scripts/setup.sh --torch, then bash scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
tapecheck="$build/tapecheck"
torch="$build/torch_bench"
have_torch() { [ -x "$torch" ]; }
# The tcmalloc the tapecheck program links (cli/CMakeLists.txt), preloaded into libtorch's side so
# that both allocate alike ("allocator":"tcmalloc"); empty when tapecheck was built without it.
tcmalloc=$(ldd "$tapecheck" | awk '/libtcmalloc/ { print $3 }')
torch_like_tapecheck() { LD_PRELOAD="$tcmalloc" "$torch" "$@"; }

# Relu chain: the compiled backward against libtorch's autograd, and its peak memory.
for n in 1000 4000 16000; do "$tapecheck" bench relu-chain --nodes "$n" --repeat 31; done
# libtorch allocates as the tapecheck program does ("allocator":"tcmalloc"), as its command line
# does under glibc ("reuse"), and with glibc's defaults ("glibc"), whose fresh pages per large
# tensor cost a page fault each here.
if have_torch; then
  torch_like_tapecheck relu-chain 16000 7; torch_like_tapecheck relu-chain 1000 7
  "$torch" relu-chain 16000 7; "$torch" --glibc-allocator relu-chain 16000 7
fi
/usr/bin/time -v "$tapecheck" bench relu-chain --nodes 16000 --repeat 3 2>&1 >/dev/null |
  awk '/Maximum resident/ {printf "{\"workload\":\"relu-chain-peak-rss\",\"nodes\":16000,\"max_rss_kib\":%s}\n", $6}'

# Single output: its cost follows the output's support, not the graph.
for carrier in rational modp; do
  for n in 1000 100000; do "$tapecheck" bench single-output --nodes "$n" --support 64 --carrier "$carrier"; done
done

# MLP (linear + relu, depth 8): forward and backward per width, libtorch beside each.
for width in 16 64 256 512; do
  "$tapecheck" bench mlp --width "$width" --depth 8 --repeat 21
  if have_torch; then
    torch_like_tapecheck mlp "$width" 8 21; "$torch" mlp "$width" 8 21; "$torch" --glibc-allocator mlp "$width" 8 21
  fi
done

# Dense matrix products and loading, at sizes N and 4N (their ratio shows the growth).
for n in 128 512; do "$tapecheck" bench matmul --n "$n" --repeat 5; done
for n in 25000 100000; do "$tapecheck" bench load-chain --nodes "$n" --repeat 3; done
# The product kernel on 41 shapes beside the work estimate's count of it (estimate_over_measured).
"$tapecheck" bench product --repeat 5

# Whole commands on files a user has: a 100,000-node chain and a 512 x 512 matmul.
files=$(mktemp -d)
trap 'rm -rf "$files"' EXIT
/usr/bin/python3 - "$files" <<'PY'
import json, random, sys
out = sys.argv[1]
links = [{"op": "neg"}, {"op": "relu"}, {"op": "scale", "attrs": {"c": "1/2"}}, {"op": "square"}, {"op": "add"}]
nodes = []
for k in range(100000):
    node = dict(links[k % 5])
    node["args"] = [k, k] if node["op"] == "add" else [k]
    nodes.append(node)
json.dump({"tapecheck": 1, "inputs": [{"shape": [4]}], "values": [["1", "-2", "0.75", "0"]], "nodes": nodes},
          open(f"{out}/chain100000.json", "w"))
rng = random.Random(1)
values = lambda: [str(rng.randint(-8, 8)) for _ in range(512 * 512)]
json.dump({"tapecheck": 1, "inputs": [{"shape": [512, 512]}, {"shape": [512, 512]}],
           "nodes": [{"op": "matmul", "args": [0, 1]}], "values": [values(), values()]},
          open(f"{out}/matmul512.json", "w"))
PY
timed() {  # timed NAME COMMAND...: one JSON line with the command's wall time
  local name="$1" start end
  shift
  start=$(date +%s%N)
  "$@" > /dev/null
  end=$(date +%s%N)
  awk -v name="$name" -v ns="$((end - start))" 'BEGIN { printf "{\"workload\":\"%s\",\"seconds\":%.3f}\n", name, ns / 1e9 }'
}
timed grad-chain-100000 "$tapecheck" grad "$files/chain100000.json" --carrier double
timed grad-matmul-512 "$tapecheck" grad "$files/matmul512.json" --carrier double
timed show-matmul-512 "$tapecheck" show "$files/matmul512.json" --carrier double
# check's budget (docs/budget.md) estimates 10 draws of this file at 3.7e10, past the
# default 1e10 (the accuracy oracle's ten runs are 1.6e10 of it): the limit is raised.
timed check-matmul-512-cases-10 "$tapecheck" check "$files/matmul512.json" --carrier double --cases 10 --seed 1 \
  --save-failures "$files/failures" --max-work 1e12
