# Shared by the golden-test runners (sourced, not run).
fail() { echo "FAIL: $*"; exit 1; }
same() {  # same EXPECTED ACTUAL WHAT: byte-identical, else a diff and FAIL
  cmp -s "$1" "$2" && return 0
  diff -u "$1" "$2" | head -40
  fail "$3 differs from $1"
}
