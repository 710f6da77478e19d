#!/usr/bin/env bash
# Runs every benchmark of bench/RESULTS.md side by side in one go and prints JSON lines.
# Usage: bash bench/run.sh [BUILD_DIR]   (libtorch comparison when BUILD_DIR/torch_relu_chain exists,
# built with: cmake -S . -B build-torch -DTAPECHECK_BENCH_TORCH=ON && make -C build-torch torch_relu_chain)
set -euo pipefail
build=${1:-build}
torch=${TORCH_BUILD:-build-torch}/torch_relu_chain
for n in 1000 4000 16000; do "$build/tapecheck" bench relu-chain --nodes "$n" --repeat 31; done
if [ -x "$torch" ]; then "$torch" 16000 7; "$torch" 1000 7; fi
/usr/bin/time -v "$build/tapecheck" bench relu-chain --nodes 16000 --repeat 3 2>&1 >/dev/null |
  awk '/Maximum resident/ {printf "{\"workload\":\"relu-chain-peak-rss\",\"nodes\":16000,\"max_rss_kib\":%s}\n", $6}'
for carrier in rational modp; do
  for n in 1000 100000; do "$build/tapecheck" bench single-output --nodes "$n" --support 64 --carrier "$carrier"; done
done
"$build/tapecheck" bench mlp --repeat 5
