#!/usr/bin/env bash
# One golden check of `reshardctl plan`, run by ctest (tests/golden.cmake).
#   run_plan_golden.sh TOOL plan  IN TABLE JSON  plan --apply IN == TABLE, and the same
#                                                 report from planning apply's output (less
#                                                 the closing line that says the lines are
#                                                 the applied program's);
#                                                 plan --apply --json IN == JSON
#                                                 (run from IN's folder: JSON names it "IN")
#                                                 (pass flags: the words of IN's NAME.flags, if any)
#   run_plan_golden.sh TOOL error IN STDERR       plan IN exits 1, writes nothing, stderr == STDERR
set -u
tool=$1 mode=$2 input=$3 expected=$4 expected_json=${5:-}
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT

source "$(dirname "$0")/golden_lib.sh"

case $mode in
  plan)
    flags=()
    [ -f "${input%.ir}.flags" ] && read -r -a flags < "${input%.ir}.flags"
    cd "$(dirname "$input")" && input=$(basename "$input")
    "$tool" plan --apply "${flags[@]}" "$input" -o "$work/table.txt" || fail "plan --apply ${flags[*]} exited $?"
    same "$expected" "$work/table.txt" "plan --apply"
    "$tool" apply "${flags[@]}" "$input" -o "$work/applied.ir" || fail "apply ${flags[*]} exited $?"
    "$tool" plan "$work/applied.ir" -o "$work/again.txt" || fail "plan on apply's output exited $?"
    grep -v '^lines: of the program' "$expected" > "$work/expected-plain.txt"
    same "$work/expected-plain.txt" "$work/again.txt" "plan on apply's output"
    "$tool" plan --apply --json "${flags[@]}" "$input" -o "$work/plan.json" || fail "plan --apply --json exited $?"
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
