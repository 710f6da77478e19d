#!/usr/bin/env bash
# Configures and builds tapecheck in ./build (Release, assertions on). Extra arguments go to make,
# e.g. `scripts/build.sh tapecheck`.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" ${1:+--target "$@"}
