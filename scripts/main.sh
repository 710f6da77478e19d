#!/usr/bin/env bash
# From a fresh Debian machine: install what is needed, build, and run the main job.
# Until the property runner exists the main job differentiates the bundled example exactly.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh tapecheck
./build/tapecheck grad examples/graphs/readme.json "$@"
