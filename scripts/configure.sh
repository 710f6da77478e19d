#!/usr/bin/env bash
# Configures a build folder with Ninja: `bash scripts/configure.sh DIR [CMAKE-ARGS...]`, used by
# build.sh, mutants.sh and sanitize.sh. Ninja rather than Make because Make compiles none of a
# target's sources until every library it links is built, so on 2 cores one core waits through the
# long instantiation units; Ninja compiles them beside each other (bench/RESULTS.md, "Ninja and Make":
# the sanitized build about 600 s -> 417 s). A folder configured earlier with another generator is
# configured again from the start (its cache and CMakeFiles/ removed): CMake refuses to switch.
set -euo pipefail
dir="$1"
shift
cache="$dir/CMakeCache.txt"
if [ -f "$cache" ] && ! grep -qx "CMAKE_GENERATOR:INTERNAL=Ninja" "$cache"; then
  echo "configure: $dir was configured with $(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$cache"); configuring it again with Ninja"
  rm -rf "$cache" "$dir/CMakeFiles"
fi
cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
