# Shared by the golden-test runners (sourced, not run).
fail() { echo "FAIL: $*"; exit 1; }
same() {  # same EXPECTED ACTUAL WHAT: byte-identical, else a diff and FAIL
  cmp -s "$1" "$2" && return 0
  diff -u "$1" "$2" | head -40
  fail "$3 differs from $1"
}
# golden EXPECTED ACTUAL WHAT: a golden file's comparison, as `same`. With
# GOLDEN_REBASE=1 (a runner's --rebase) ACTUAL replaces EXPECTED instead:
# through a temporary file and a rename, since tests that share an expected
# file may rebase it at the same time.
golden() {
  [ "${GOLDEN_REBASE:-}" = 1 ] || { same "$@"; return; }
  cmp -s "$1" "$2" && return 0
  local temporary
  temporary=$(mktemp "$1.rebase.XXXXXX") && cp "$2" "$temporary" && chmod 644 "$temporary" &&
    mv "$temporary" "$1" || fail "cannot rebase $1"
  echo "rebased $1"
}
