#!/usr/bin/env bash
# From a fresh Debian machine: install what is needed, build, and run the main job.
# The main job: every property on every carrier, 100 generated cases each.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh tapecheck
./build/tapecheck run "$@"
