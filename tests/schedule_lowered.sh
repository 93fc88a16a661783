#!/usr/bin/env bash
# Every dist program among the samples and goldens that `lower --apply
# --all-ranks` lowers is checked by `schedule --apply` (lowered for every rank
# internally) and must be clean, except the programs named below, whose
# lowering by Paddle's functions really hangs (a rank that must both send and
# receive only receives: same_status stops at its first pair), where the
# finding must be reported. Each that `--lowering=plan` lowers is checked
# lowered that way too, and must be clean.
#   tests/schedule_lowered.sh TOOL DIR...
set -u
tool=$1
shift
declare -A hangs=([warn-send_and_receive.ir]="has no matching send" [dist_send_and_receive.ir]="has no matching send")
lowered=0 clean=0 found=0 failed=0 planned=0 planned_clean=0
while IFS= read -r file; do
  "$tool" lower --apply --all-ranks "$file" -o /dev/null >/dev/null 2>&1 || continue
  lowered=$((lowered + 1))
  err=$("$tool" schedule --apply "$file" 2>&1 >/dev/null)
  status=$?
  expected=${hangs[$(basename "$file")]:-}
  if [ -z "$expected" ] && [ $status -eq 0 ]; then
    clean=$((clean + 1))
  elif [ -n "$expected" ] && [ $status -eq 1 ] && grep -q "$expected" <<<"$err"; then
    found=$((found + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $file: exit $status${expected:+ (expected the finding '$expected')}"
    echo "$err" | head -6
  fi
  # The plan's lowering (same_status's p2p ops extended to parts, docs/lowering.md) must be clean too.
  "$tool" lower --apply --all-ranks --lowering=plan "$file" -o /dev/null >/dev/null 2>&1 || continue
  planned=$((planned + 1))
  err=$("$tool" schedule --apply --lowering=plan "$file" 2>&1 >/dev/null)
  status=$?
  if [ $status -eq 0 ]; then
    planned_clean=$((planned_clean + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $file (--lowering=plan): exit $status"
    echo "$err" | head -6
  fi
done < <(find "$@" -name '*.ir' ! -name '*.expected.*' | sort)
echo "schedule --apply: $lowered dist programs lowered for every rank: $clean clean, $found known hangs found, $failed failed"
echo "schedule --apply --lowering=plan: $planned lowered, $planned_clean clean"
[ $failed -eq 0 ] && [ $found -eq ${#hangs[@]} ] && [ $lowered -ge 20 ] && [ $planned -ge 20 ]
