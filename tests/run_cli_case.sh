#!/usr/bin/env bash
# One command-line check, run by ctest (tests/ci_tests.cmake), from the
# repository root so file names in the output are relative:
#   run_cli_case.sh EXPECTED_EXIT EXPECTED_STDOUT TOOL ARGS...
# EXPECTED_STDOUT is a file holding the exact standard output, or "-" for none.
# With EXPECTED_STDERR set (ctest ENVIRONMENT), standard error must be that file's text.
# With GOLDEN_REBASE=1 (scripts/regen-goldens.sh) the outputs are written over
# those files instead (tests/golden_lib.sh); the exit code is still checked.
set -u
expected_exit=$1 expected_stdout=$2
shift 2
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/golden_lib.sh"

"$@" >"$work/stdout" 2>"$work/stderr"
status=$?
if [ "$status" -ne "$expected_exit" ]; then
  echo "FAIL: expected exit code $expected_exit, got $status"; cat "$work/stderr"; exit 1
fi
if [ "$expected_stdout" = "-" ]; then
  [ ! -s "$work/stdout" ] || { echo "FAIL: expected no output, got:"; head -20 "$work/stdout"; exit 1; }
else
  golden "$expected_stdout" "$work/stdout" "standard output"
fi
if [ -n "${EXPECTED_STDERR:-}" ]; then
  golden "$EXPECTED_STDERR" "$work/stderr" "standard error"
fi
echo ok
