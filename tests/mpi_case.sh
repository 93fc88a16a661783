#!/usr/bin/env bash
# One multi-process check of `run --backend nccl` under mpirun, run by ctest
# (tests/mpi_tests.cmake) from the repository root:
#   mpi_case.sh EXPECTED_EXIT PATTERN LIMIT_S [--skip-with-gpu] MPIRUN ARGS...
# Passes when the job ends within LIMIT_S seconds (a hang fails), with
# EXPECTED_EXIT, and standard error holds exactly one line matching the
# extended regex PATTERN: process 0 alone reports what every process found.
# --skip-with-gpu: exit 77 (skipped) where nvidia-smi lists a GPU, for checks
# of the no-GPU message.
set -u
expected_exit=$1 pattern=$2 limit=$3
shift 3
if [ "${1:-}" = "--skip-with-gpu" ]; then
  shift
  if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then echo "skipped: a GPU is visible"; exit 77; fi
fi
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT

start=$(date +%s)
timeout --kill-after=5 "$limit" "$@" >"$work/stdout" 2>"$work/stderr"
status=$?
took=$(($(date +%s) - start))
fail() { echo "FAIL: $*"; echo "--- stderr"; head -40 "$work/stderr"; echo "--- stdout"; head -20 "$work/stdout"; exit 1; }
case $status in
  124 | 137) fail "no result within ${limit}s (a hang)" ;;
esac
[ "$status" -eq "$expected_exit" ] || fail "expected exit code $expected_exit, got $status"
matches=$(grep -cE -- "$pattern" "$work/stderr")
[ "$matches" -eq 1 ] || fail "expected one line of standard error matching '$pattern', found $matches"
echo "ok (${took}s): $(grep -E -- "$pattern" "$work/stderr")"
