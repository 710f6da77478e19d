#!/usr/bin/env bash
# The layers' include rules: no #include runs back up a layer. Each rule is "folder: folders it
# must not include". Prints every offending line and exits 1 if there is one.
set -u
cd "${1:-$(dirname "$0")/../..}"
rules=(
  "core/support: core/carriers core/tensor core/ops core/graph core/io core/spec core/runtime adapters generators properties cli bench"
  "core/carriers: core/tensor core/ops core/graph core/io core/spec core/runtime adapters generators properties cli bench"
  "core/tensor: core/carriers core/ops core/graph core/io core/spec core/runtime adapters generators properties cli bench"
  "core/ops: core/graph core/io core/spec core/runtime adapters generators properties cli bench"
  "core/graph: core/io core/spec core/runtime adapters generators properties cli bench"
  "core/io: core/spec core/runtime adapters generators properties cli bench"
  "core/spec: core/runtime core/io adapters generators properties cli bench"
  "core/runtime: core/spec core/io adapters generators properties cli bench"
  "generators: properties adapters cli bench"
  "properties: adapters cli bench"
  "adapters: cli bench"
  "bench: cli"
)
status=0
for rule in "${rules[@]}"; do
  folder="${rule%%:*}"
  for banned in ${rule#*:}; do
    hits=$(grep -rn --include='*.h' --include='*.hpp' --include='*.cpp' "#include \"$banned/" "$folder" 2>/dev/null)
    if [ -n "$hits" ]; then
      echo "$folder must not include $banned:"
      echo "$hits" | sed 's/^/  /'
      status=1
    fi
  done
done
[ $status -eq 0 ] && echo "layering: every include runs down a layer"
exit $status
