#!/usr/bin/env bash
# validate under mpirun against validate in one process, run by ctest
# (tests/mpi_tests.cmake) from the repository root:
#   mpi_validate_case.sh RESHARDCTL PROCESSES VALIDATE_ARGS...
# Passes when `mpirun -np PROCESSES reshardctl validate ARGS` ends within 120 s
# with the exit status, standard output and standard error of the one-process
# run, except that its summary says `in PROCESSES processes` after the ranks
# (once: process 0 alone reports) and mpirun may add its note on a failed job.
# Exit 77 (skipped) where mpirun is absent.
source "$(dirname "$0")/mpi_case_setup.sh"
"$reshardctl" validate "$@" >"$work/one.out" 2>"$work/one.err"
echo $? >"$work/one.rc"
timeout --kill-after=5 120 mpirun "${root_flag[@]}" --oversubscribe -np "$processes" \
  "$reshardctl" validate "$@" >"$work/many.out" 2>"$work/many.err"
status=$?
echo $status >"$work/many.rc"
fail() { echo "FAIL: $*"; echo "--- stderr"; head -40 "$work/many.err"; echo "--- stdout"; head -20 "$work/many.out"; exit 1; }
case $status in 124 | 137) fail "no result within 120s (a hang)" ;; esac
summaries=$(grep -c " ranks\? in $processes processes" "$work/many.out")
[ "$summaries" -eq 1 ] || fail "expected one summary ending 'in $processes processes', found $summaries"
sed -i "s/ in $processes processes//" "$work/many.out"
sed -i '/^-----------/,$d' "$work/many.err"  # mpirun's note on a job that exited non-zero
cmp -s "$work/one.rc" "$work/many.rc" || fail "exit $(cat "$work/one.rc") in one process, $status under mpirun"
diff "$work/one.out" "$work/many.out" >/dev/null || fail "standard output differs from the one-process run's"
diff "$work/one.err" "$work/many.err" >/dev/null || fail "standard error differs from the one-process run's"
echo "ok: $(grep -h "processes\|match" "$work/many.out" | head -1)"
