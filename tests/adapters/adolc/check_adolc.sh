#!/usr/bin/env bash
# ADOL-C through tapecheck's engine verdict (the default run: 100 cases per row, no mode flags):
#   check_adolc.sh ADOLC_CHECK TAPECHECK verdict SEED   adolc passes ("all passed", exit 0)
#   check_adolc.sh ADOLC_CHECK TAPECHECK served SEED    the same verdict through the engine protocol:
#                                                       tapecheck run --engine-cmd "ADOLC_CHECK serve ..."
#   check_adolc.sh ADOLC_CHECK TAPECHECK bug SEED       adolc-bug (sigmoid's slope from its input) fails
#                                                       (exit 1), every counterexample of its JSON report
#                                                       shrunk to at most 2 nodes, a sigmoid among them
# It runs in a fresh temporary folder, where the failures are saved and then removed.
set -euo pipefail
adolc_check="$1" tapecheck="$2" check="$3" seed="$4"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

# Runs a verdict, keeping its output in $work/out; its exit status in $status.
verdict() {
  status=0
  "$@" --cases 100 --seed "$seed" --json report.json >out 2>&1 || status=$?
}

case "$check" in
  verdict | served)
    if [ "$check" = verdict ]; then
      verdict "$adolc_check" run --engine adolc
    else
      verdict "$tapecheck" run --engine-cmd "$adolc_check serve --engine adolc"
    fi
    if [ "$status" -ne 0 ] || ! grep -q "all passed" out; then
      cat out
      echo "check_adolc: the ADOL-C engine verdict ($check) did not pass at seed $seed (exit $status)" >&2
      exit 1
    fi
    tail -n 1 out
    ;;
  bug)
    verdict "$adolc_check" run --engine adolc-bug
    if [ "$status" -ne 1 ]; then
      cat out
      echo "check_adolc: adolc-bug was not caught at seed $seed (exit $status, expected 1)" >&2
      exit 1
    fi
    # Every failure's row, node count and op list of its shrunk counterexample, one per line.
    nodes="$(/usr/bin/python3 -c '
import json
report = json.load(open("report.json"))
for row in report["results"]:
    if "failure" in row:
        failure = row["failure"]
        ops = ",".join(node["op"] for node in failure["case"]["nodes"])
        print(row["property"], row["carrier"], failure["nodes"], ops)
')"
    if [ -z "$nodes" ]; then
      cat out
      echo "check_adolc: adolc-bug failed without a counterexample in its JSON report" >&2
      exit 1
    fi
    echo "$nodes"
    if echo "$nodes" | awk '$3 > 2 { bad = 1 } END { exit !bad }'; then
      echo "check_adolc: a counterexample of adolc-bug has more than 2 nodes" >&2
      exit 1
    fi
    # Caught for the planted rule, not for something else.
    if echo "$nodes" | grep -qv "sigmoid"; then
      echo "check_adolc: a counterexample of adolc-bug has no sigmoid node" >&2
      exit 1
    fi
    ;;
  *)
    echo "usage: check_adolc.sh ADOLC_CHECK TAPECHECK verdict|served|bug SEED" >&2
    exit 2
    ;;
esac
