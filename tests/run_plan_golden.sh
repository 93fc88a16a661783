#!/usr/bin/env bash
# One golden check of `reshardctl plan`, run by ctest (tests/golden.cmake).
#   run_plan_golden.sh TOOL plan  IN TABLE JSON  plan --apply IN == TABLE, and the same
#                                                 report from planning apply's output;
#                                                 plan --apply --json IN == JSON
#   run_plan_golden.sh TOOL error IN STDERR       plan IN exits 1, writes nothing, stderr == STDERR
set -u
tool=$1 mode=$2 input=$3 expected=$4 expected_json=${5:-}
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*"; exit 1; }
same() {  # same EXPECTED ACTUAL WHAT
  cmp -s "$1" "$2" && return 0
  diff -u "$1" "$2" | head -40
  fail "$3 differs from $1"
}

case $mode in
  plan)
    "$tool" plan --apply "$input" -o "$work/table.txt" || fail "plan --apply exited $?"
    same "$expected" "$work/table.txt" "plan --apply"
    "$tool" apply "$input" -o "$work/applied.ir" || fail "apply exited $?"
    "$tool" plan "$work/applied.ir" -o "$work/again.txt" || fail "plan on apply's output exited $?"
    same "$expected" "$work/again.txt" "plan on apply's output"
    "$tool" plan --apply --json "$input" -o "$work/plan.json" || fail "plan --apply --json exited $?"
    same "$expected_json" "$work/plan.json" "plan --apply --json"
    ;;
  error)
    (cd "$(dirname "$input")" && "$tool" plan "$(basename "$input")" -o "$work/out.txt" 2>"$work/stderr")
    status=$?
    [ "$status" -eq 1 ] || fail "expected exit code 1, got $status"
    [ ! -e "$work/out.txt" ] || fail "a report was written for a reshard without a plan"
    same "$expected" "$work/stderr" "stderr"
    ;;
  *) fail "unknown mode $mode" ;;
esac
echo "ok"
