#!/usr/bin/env bash
# Programs inside a log (README "Where dumps come from"), the checks a single
# stdout golden cannot make:
#   log_in_place.sh TOOL LOG N AFTER
# `apply --in-place --program N` rewrites only program N's lines: the result
# is LOG with program N replaced by AFTER (the plain-dump answer), every other
# byte unchanged; `run` proves the reshards of program N on a log.
set -u
tool=$1 log=$2 n=$3 after=$4
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The expected log: LOG's bytes before and after program N around AFTER.
range=$("$tool" list --json "$log" | python3 -c "
import json, sys
p = json.load(sys.stdin)['files'][0]['programs'][$n - 1]
print(p['location']['line'], p['end_line'])") || fail "list --json failed"
read -r first last <<<"$range"
{ head -n $((first - 1)) "$log"; cat "$after"; tail -n +$((last + 1)) "$log"; } >"$work/expected.log"

cp "$log" "$work/in.log"
"$tool" apply --in-place --program "$n" "$work/in.log" || fail "apply --in-place --program $n exited $?"
cmp -s "$work/expected.log" "$work/in.log" || { diff "$work/expected.log" "$work/in.log" | head -20; fail "the log changed beyond program $n"; }
"$tool" print --program "$n" "$work/in.log" | cmp -s - "$after" || fail "program $n does not print back as AFTER"

out=$("$tool" run --apply --program "$n" "$log") || fail "run --apply --program $n exited $?"$'\n'"$out"
echo "$out" | tail -1 | grep -Eq '^[1-9][0-9]* passed, 0 failed$' || fail "run: $(echo "$out" | tail -1)"
echo ok
