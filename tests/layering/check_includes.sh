#!/usr/bin/env bash
# The layers' include rules: no #include runs back up a layer. Each rule is "folder: folders it
# must not include". Prints every offending line and exits 1 if there is one.
set -u
cd "${1:-$(dirname "$0")/../..}"
rules=(
  "core/support: core/carriers core/tensor core/ops core/graph core/io core/spec core/runtime adapters generators properties cli bench integrations"
  "core/carriers: core/tensor core/ops core/graph core/io core/spec core/runtime adapters generators properties cli bench integrations"
  "core/tensor: core/carriers core/ops core/graph core/io core/spec core/runtime adapters generators properties cli bench integrations"
  "core/ops: core/graph core/io core/spec core/runtime adapters generators properties cli bench integrations"
  "core/graph: core/io core/spec core/runtime adapters generators properties cli bench integrations"
  "core/io: core/spec core/runtime adapters generators properties cli bench integrations"
  "core/spec: core/runtime core/io adapters generators properties cli bench integrations"
  "core/runtime: core/spec core/io adapters generators properties cli bench integrations"
  "generators: properties adapters cli bench integrations"
  "properties: adapters cli bench integrations"
  "properties/engines: properties/theorems properties/oracles properties/runner"
  "properties/theorems: properties/oracles properties/runner"
  "properties/oracles: properties/theorems properties/runner"
  "adapters: cli bench integrations"
  "bench: cli integrations"
  "cli: integrations"
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
# The floor of properties/ (its files outside the rooms) includes none of the rooms.
floor_hits=$(grep -n --include='*.h' --include='*.hpp' --include='*.cpp' -E "#include \"properties/(engines|theorems|oracles|runner)/" properties/*.h properties/*.hpp 2>/dev/null)
if [ -n "$floor_hits" ]; then
  echo "properties/ (the floor) must not include its rooms:"
  echo "$floor_hits" | sed 's/^/  /'
  status=1
fi
# The naive forward (properties/oracles/naive_forward.*) is written apart from core/ops: of core/ops
# it includes the names of the op kinds only, of core/graph the containers only, and no kernel, shape
# rule, op struct or reference evaluation.
naive_hits=$(grep -n -E '#include "(core/ops/|core/graph/|core/spec/|core/runtime/|core/instantiate/)' \
  properties/oracles/naive_forward.h properties/oracles/naive_forward.hpp 2>/dev/null |
  grep -v -E '#include "(core/ops/op_kind.h|core/graph/graph.h)"')
if [ -n "$naive_hits" ]; then
  echo "properties/oracles/naive_forward must not include core/ops definitions (only op_kind.h, graph.h):"
  echo "$naive_hits" | sed 's/^/  /'
  status=1
fi
# Adapters see the engine room and the floor only.
adapter_hits=$(grep -rn --include='*.h' --include='*.hpp' --include='*.cpp' -E "#include \"properties/(theorems|oracles|runner)/" adapters 2>/dev/null)
if [ -n "$adapter_hits" ]; then
  echo "adapters must include only properties/engines and properties/compare.h:"
  echo "$adapter_hits" | sed 's/^/  /'
  status=1
fi
[ $status -eq 0 ] && echo "layering: every include runs down a layer"
exit $status
