#!/usr/bin/env bash
# `run --backend cpu` under mpirun against run in one process, run by ctest
# (tests/mpi_tests.cmake) from the repository root:
#   mpi_run_case.sh RESHARDCTL PROCESSES RUN_ARGS...
# Passes when `mpirun -np PROCESSES reshardctl run ARGS` ends within 60 s with
# the one-process run's exit status and rows (every column but the times), and
# one summary `backend cpu on R ranks in PROCESSES processes` where one
# process says `backend cpu`. Exit 77 (skipped) where mpirun is absent.
source "$(dirname "$0")/mpi_case_setup.sh"
fail() { echo "FAIL: $*"; echo "--- stderr"; head -20 "$work/many.err"; echo "--- stdout"; head -20 "$work/many.out"; exit 1; }
"$reshardctl" run "$@" >"$work/one.out" 2>"$work/one.err"
one=$?
timeout --kill-after=5 60 mpirun "${root_flag[@]}" --oversubscribe -np "$processes" "$reshardctl" run "$@" \
  >"$work/many.out" 2>"$work/many.err"
many=$?
case $many in 124 | 137) fail "no result within 60s (a hang)" ;; esac
[ "$one" -eq "$many" ] || fail "exit $one in one process, $many under mpirun"
grep -q '^backend cpu$' "$work/one.out" || fail "the one-process run says no 'backend cpu'"
[ "$(grep -c "^backend cpu on [0-9]* ranks\? in $processes processes$" "$work/many.out")" -eq 1 ] ||
  fail "expected one 'backend cpu on R ranks in $processes processes'"
# The rows up to the bytes column (the times differ from run to run).
rows() { grep -v '^backend cpu' "$1" | cut -c1-90; }
diff <(rows "$work/one.out") <(rows "$work/many.out") >/dev/null || fail "the rows differ from the one-process run's"
echo "ok: $(grep '^backend' "$work/many.out"), $(tail -1 "$work/many.out")"
