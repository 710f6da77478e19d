#!/usr/bin/env bash
# Configures and builds tapecheck in ./build (Release, assertions on; Ninja, scripts/configure.sh).
# Extra arguments name the targets to build, e.g. `scripts/build.sh tapecheck`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/configure.sh build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)" ${1:+--target "$@"}
