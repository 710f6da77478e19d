#!/usr/bin/env bash
# From a fresh Debian machine: install what is needed, build, and run every test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
bash scripts/build.sh
cd build && ctest --output-on-failure -j "$(nproc)"
