#!/usr/bin/env bash
# One command-line check, run by ctest (tests/ci_tests.cmake), from the
# repository root so file names in the output are relative:
#   run_cli_case.sh EXPECTED_EXIT EXPECTED_STDOUT TOOL ARGS...
# EXPECTED_STDOUT is a file holding the exact standard output, or "-" for none.
# With EXPECTED_STDERR set (ctest ENVIRONMENT), standard error must be that file's text.
set -u
expected_exit=$1 expected_stdout=$2
shift 2
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT

"$@" >"$work/stdout" 2>"$work/stderr"
status=$?
if [ "$status" -ne "$expected_exit" ]; then
  echo "FAIL: expected exit code $expected_exit, got $status"; cat "$work/stderr"; exit 1
fi
if [ "$expected_stdout" = "-" ]; then
  [ ! -s "$work/stdout" ] || { echo "FAIL: expected no output, got:"; head -20 "$work/stdout"; exit 1; }
elif ! cmp -s "$expected_stdout" "$work/stdout"; then
  diff -u "$expected_stdout" "$work/stdout" | head -40
  echo "FAIL: standard output differs from $expected_stdout"; exit 1
fi
if [ -n "${EXPECTED_STDERR:-}" ] && ! cmp -s "$EXPECTED_STDERR" "$work/stderr"; then
  diff -u "$EXPECTED_STDERR" "$work/stderr" | head -40
  echo "FAIL: standard error differs from $EXPECTED_STDERR"; exit 1
fi
echo ok
