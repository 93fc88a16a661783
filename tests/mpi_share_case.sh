#!/usr/bin/env bash
# validate's ranks shared out under mpirun hold their share of the pieces, run
# by ctest (tests/mpi_tests.cmake) from the repository root:
#   mpi_share_case.sh RESHARDCTL PROCESSES
# On a program of 64 ranks with small tensors (scripts/many_ranks.py), the
# tool's own count of the rank pieces each process made (RESHARDCTL_SHARE_STATS)
# under mpirun -np PROCESSES against one process: every piece is made by exactly
# one process (the shares add up to the one process's total), each process
# makes at most 1/PROCESSES of it (and a rounding), and the pieces received
# from the others are fewer than all of them; the report is the one-process
# report. Exit 77 (skipped) where mpirun is absent.
source "$(dirname "$0")/mpi_case_setup.sh"
fail() { echo "FAIL: $*"; echo "--- stderr"; head -20 "$work/many.err"; exit 1; }
python3 scripts/many_ranks.py --ranks 64 --size 16 --layers 2 >"$work/many.ir" || fail "the generator failed"
RESHARDCTL_SHARE_STATS=1 "$reshardctl" validate --apply "$work/many.ir" >"$work/one.out" 2>"$work/one.err" ||
  fail "one process: exit $?"
RESHARDCTL_SHARE_STATS=1 timeout --kill-after=5 60 mpirun "${root_flag[@]}" --oversubscribe -np "$processes" \
  "$reshardctl" validate --apply "$work/many.ir" >"$work/many.out" 2>"$work/many.err" || fail "mpirun: exit $?"
pieces() { sed -n 's/^reshardctl: process [0-9]* of [0-9]*: rank pieces \([0-9]*\) bytes, received \([0-9]*\) bytes$/\1 \2/p' "$1"; }
total=$(pieces "$work/one.err" | awk '{print $1}')
[ -n "$total" ] && [ "$(pieces "$work/one.err" | wc -l)" -eq 1 ] || fail "one process reports no share: $(cat "$work/one.err")"
[ "$(pieces "$work/many.err" | wc -l)" -eq "$processes" ] || fail "expected $processes shares"
pieces "$work/many.err" | awk -v total="$total" -v p="$processes" '
  { sum += $1; received += $2; if ($1 > total / p * 1.1) { print "a process made " $1 " bytes of pieces, over 1/" p " of " total; bad = 1 } }
  END { if (sum != total) { print "the shares add up to " sum ", not " total; bad = 1 }
        if (received <= 0 || received >= total) { print "received " received " bytes of " total; bad = 1 }
        exit bad }' || fail "the shares are not 1/$processes each"
sed -i "s/ in $processes processes//" "$work/many.out"
diff "$work/one.out" "$work/many.out" >/dev/null || fail "the report differs from the one-process report"
echo "ok: one process $total bytes of pieces; under -np $processes: $(pieces "$work/many.err" | awk '{printf "%s ", $1}')"
