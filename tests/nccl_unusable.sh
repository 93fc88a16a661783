#!/bin/sh
# `run --backend nccl` with an unusable NCCL (RESHARDCTL_NCCL_LIB set by ctest,
# cmake/gpu.cmake): exit 2 and a message naming the reason, never a
# symbol-lookup death.
#   nccl_unusable.sh TOOL SAMPLE PATTERN   (PATTERN: grep -E on stderr)
tool=$1 sample=$2 pattern=$3
err=$("$tool" run --apply --backend nccl "$sample" 2>&1 >/dev/null)
status=$?
[ $status -eq 2 ] || { echo "exit $status, expected 2: $err"; exit 1; }
printf '%s\n' "$err" | head -1 | grep -q '^reshardctl: error: the nccl backend is not available: cannot load NCCL' ||
  { echo "first line: $err"; exit 1; }
printf '%s\n' "$err" | grep -qE -- "$pattern" || { echo "no '$pattern' in: $err"; exit 1; }
echo ok
