# The checks the package tests share (sourced by external_example.sh and gtest_example.sh): each
# prints what it saw and exits 1 when its expectation fails.
expect_status() {  # expect_status WANTED OUTPUT_FILE COMMAND...
  local wanted="$1" file="$2" status=0
  shift 2
  "$@" > "$file" 2>&1 || status=$?
  [ "$status" -eq "$wanted" ] || { cat "$file"; echo "expected status $wanted from: $*; got $status"; exit 1; }
}
expect_text() {  # expect_text OUTPUT_FILE EXTENDED_REGEX
  grep -Eq -- "$2" "$1" || { cat "$1"; echo "expected /$2/ in $1"; exit 1; }
}
expect_equal() {  # expect_equal WHAT WANTED GOT
  [ "$2" = "$3" ] || { echo "$1: expected $2, got $3"; exit 1; }
}
