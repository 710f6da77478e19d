#!/usr/bin/env bash
# The CMake package as another project uses it: install tapecheck to a fresh prefix, build
# examples/engine against it from a clean directory, check that minigrad passes, and that its
# bug switch produces a shrunk counterexample.
#   external_example.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$1" source="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$source/examples/engine" -B "$work/example" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/example" > "$work/build.log"
"$work/example/minigrad_check" --cases 50 > "$work/clean.txt"
grep -q "minigrad passes every engine property" "$work/clean.txt"
status=0
"$work/example/minigrad_check" --cases 50 --bug > "$work/bug.txt" || status=$?
cat "$work/bug.txt"
[ "$status" -eq 1 ] || { echo "expected status 1 with --bug, got $status"; exit 1; }
grep -q "shrunk in .* steps from .* to [123] nodes" "$work/bug.txt"
echo "external example: builds against the installed package, passes, and --bug shrinks"
