#!/usr/bin/env bash
# One golden-file check, run by ctest (tests/golden.cmake registers one per file).
#   run_golden.sh TOOL pass      IN EXPECTED  apply IN == EXPECTED, and apply EXPECTED == EXPECTED
#                                             (apply flags: the words of IN's NAME.flags, if any)
#   run_golden.sh TOOL roundtrip IN           print IN == IN, byte for byte
#   run_golden.sh TOOL error     IN EXPECTED  print IN exits 1, writes no output, stderr == EXPECTED
#   run_golden.sh TOOL verify    IN EXPECTED  verify IN exits 0 with stderr == EXPECTED (warnings);
#                                             --werror exits 1; --quiet prints nothing
# Errors are run from the input's folder so messages name the file as "bad-x.ir".
set -u
tool=$1 mode=$2 input=$3 expected=${4:-}
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT

source "$(dirname "$0")/golden_lib.sh"

case $mode in
  pass)
    flags=()
    [ -f "${input%.ir}.flags" ] && read -r -a flags < "${input%.ir}.flags"
    "$tool" apply "${flags[@]}" "$input" -o "$work/out.ir" || fail "apply ${flags[*]} exited $?"
    same "$expected" "$work/out.ir" "apply output"
    "$tool" apply "${flags[@]}" "$expected" -o "$work/again.ir" || fail "apply on its own output exited $?"
    same "$expected" "$work/again.ir" "apply on the expected output (must change nothing)"
    ;;
  roundtrip)
    "$tool" print "$input" -o "$work/out.ir" || fail "print exited $?"
    same "$input" "$work/out.ir" "print output"
    ;;
  error)
    (cd "$(dirname "$input")" && "$tool" print "$(basename "$input")" -o "$work/out.ir" 2>"$work/stderr")
    status=$?
    [ "$status" -eq 1 ] || fail "expected exit code 1, got $status"
    [ ! -e "$work/out.ir" ] || fail "an output file was written for bad input"
    same "$expected" "$work/stderr" "stderr"
    ;;
  verify)
    cd "$(dirname "$input")" && name=$(basename "$input")
    "$tool" verify "$name" 2>"$work/stderr" || fail "verify exited $?"
    same "$expected" "$work/stderr" "stderr"
    "$tool" verify --werror "$name" 2>/dev/null && fail "verify --werror exited 0 despite warnings"
    "$tool" verify --quiet "$name" 2>"$work/quiet" || fail "verify --quiet exited $?"
    [ ! -s "$work/quiet" ] || fail "verify --quiet printed warnings"
    ;;
  *) fail "unknown mode $mode" ;;
esac
echo "ok"
