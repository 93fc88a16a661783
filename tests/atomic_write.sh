#!/usr/bin/env bash
# Output is written atomically (README "Output files"): checks the tool, not
# just OutputFile, including a write that fails half-way.
#   atomic_write.sh TOOL BEFORE AFTER BAD
# BEFORE/AFTER: a pass pair (apply BEFORE == AFTER); BAD: an input that fails to parse.
set -u
tool=$1 before=$2 after=$3 bad=$4
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
no_temp_left() { ! ls "$work" | grep -q reshardctl- || fail "a temporary file was left: $(ls "$work")"; }

# -o naming the input file reads the whole input before replacing it.
cp "$before" "$work/same.ir"
"$tool" apply "$work/same.ir" -o "$work/same.ir" || fail "apply -o INPUT exited $?"
cmp -s "$after" "$work/same.ir" || fail "apply -o INPUT wrote the wrong program"
cp "$before" "$work/inplace.ir"
"$tool" apply --in-place "$work/inplace.ir" || fail "apply --in-place exited $?"
cmp -s "$after" "$work/inplace.ir" || fail "apply --in-place wrote the wrong program"
no_temp_left

# A run that fails leaves an earlier output untouched: bad input...
echo "earlier output" >"$work/out.ir"
"$tool" print "$bad" -o "$work/out.ir" 2>/dev/null
[ $? -eq 1 ] || fail "bad input should exit 1"
[ "$(cat "$work/out.ir")" = "earlier output" ] || fail "bad input changed the earlier output"
# ...and a write that fails half-way: a 4 KiB file size limit (SIGXFSZ
# ignored, so write() fails with EFBIG instead of killing the process).
(ulimit -f 4; trap '' XFSZ; "$tool" apply "$before" -o "$work/out.ir" 2>"$work/stderr"; echo $? >"$work/status")
[ "$(cat "$work/status")" = 2 ] || fail "a failed write should exit 2, got $(cat "$work/status")"
grep -q "cannot write" "$work/stderr" || fail "no diagnostic for the failed write: $(cat "$work/stderr")"
[ "$(cat "$work/out.ir")" = "earlier output" ] || fail "a failed write changed the earlier output"
[ "$(stat -c %s "$before")" -gt 4096 ] || fail "the input is too small to make the write fail"
no_temp_left

# /dev/stdout and pipes are written directly; `>>` keeps what was there.
"$tool" print "$before" -o /dev/stdout | cmp -s "$before" - || fail "-o /dev/stdout into a pipe"
echo "kept" >"$work/log"
"$tool" print "$before" -o /dev/stdout >>"$work/log" || fail "-o /dev/stdout >> file exited $?"
{ echo "kept"; cat "$before"; } | cmp -s - "$work/log" || fail "-o /dev/stdout >> file lost the earlier lines"
[ -L /dev/stdout ] || fail "/dev/stdout is no longer a symlink"
echo ok
