#!/usr/bin/env bash
# The GPU check of reshardctl, run from the bundle scripts/gpu-bundle.sh builds
# (no compiler, CMake or -dev packages needed on the GPU machine):
#
#   BUNDLE/gpu-check.sh [OUT_DIR]               (the copy inside the bundle)
#   scripts/gpu-check.sh BUNDLE [OUT_DIR]       (from a checkout)
#
# OUT_DIR: $OUT when set, else BUNDLE/check-out. It receives gpu-check.log (every
# command and its output), figures.txt (what was measured) and selftest.txt.
#
# Checks, each under `timeout`, the whole within GPU_CHECK_BUDGET_S (280 s):
#  1. nvidia-smi; without a usable GPU the check stops here (exit 3).
#  2. NCCL: every libnccl.so.2 found and its version (gpu_selftest --nccl-list);
#     communicator init with NCCL_DEBUG=INFO (an excerpt goes to the log).
#  3. gpu_selftest in full: kernels against host answers, 1-rank plans that
#     launch real NCCL collectives and local kernels, kernel and 1-rank
#     collective bandwidth against cudaMemcpy D2D.
#  4. compute-sanitizer --tool memcheck on gpu_selftest --quick, where present.
#  5. run --backend nccl on one GPU: a plan with a local step, at the sample's
#     size and scaled up for a kernel time.
#  6. The exit-2 paths: a 2-rank plan on 1 GPU, CUDA_VISIBLE_DEVICES= (no GPU),
#     GPU sharing asked for with NCCL < 2.30, no NCCL at all.
#  7. Only where an NCCL >= 2.30 is found: two ranks sharing the GPU
#     (NCCL_MULTI_RANK_GPU_ENABLE): gpu_selftest's 2-rank plans; run on p->r,
#     p->s, s->r, s(0)->s(1), uneven shapes and between meshes; 4 ranks refused
#     (NCCL's cap of 2 per GPU); bus bandwidth of each collective at 32 MiB.
# Ends with `N passed, M failed`. Exit: 0 all passed, 1 a check failed, 2 bad
# usage or no bundle, 3 no usable GPU.
set -uo pipefail
export PATH=${PATH:-/usr/local/bin:/usr/bin:/bin}

here=$(cd "$(dirname "$0")" && pwd)
if [[ -x $here/bin/reshardctl ]]; then
  BUNDLE=$here
else
  BUNDLE=${1:-}
  shift || true
  if [[ -z $BUNDLE || ! -x $BUNDLE/bin/reshardctl ]]; then
    echo "usage: BUNDLE/gpu-check.sh [OUT_DIR]  or  scripts/gpu-check.sh BUNDLE [OUT_DIR]" >&2
    echo "(build the bundle with scripts/gpu-bundle.sh BUNDLE)" >&2
    exit 2
  fi
  BUNDLE=$(cd "$BUNDLE" && pwd)
fi
OUT_DIR=${1:-${OUT:-$BUNDLE/check-out}}
mkdir -p "$OUT_DIR" || exit 2
LOG=$OUT_DIR/gpu-check.log
FIGURES=$OUT_DIR/figures.txt
: >"$LOG"
: >"$FIGURES"
BIN=$BUNDLE/bin
SAMPLES=$BUNDLE/samples
FAKES=$BUNDLE/test
START=$SECONDS
BUDGET=${GPU_CHECK_BUDGET_S:-280}
PASSED=0
FAILED=0
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
OUTPUT=""  # the last check's output file

say() { echo "$*" | tee -a "$LOG"; }
figure() { echo "$*" >>"$FIGURES"; }

# check NAME LIMIT_S EXPECT CMD...: runs CMD under timeout (never past the
# budget) and counts it. EXPECT: the exit status wanted, optionally with a
# pattern its output must match (grep -E), as "2:PATTERN".
check() {
  local name=$1 limit=$2 expect=$3
  shift 3
  local want=${expect%%:*} pattern=""
  [[ $expect == *:* ]] && pattern=${expect#*:}
  local left=$((BUDGET - (SECONDS - START)))
  if ((left < 10)); then
    say "FAIL $name (out of time)"
    FAILED=$((FAILED + 1))
    return 1
  fi
  ((limit > left - 5)) && limit=$((left - 5))
  OUTPUT=$SCRATCH/$((PASSED + FAILED)).out
  local t0=$SECONDS
  timeout --kill-after=5 "$limit" "$@" >"$OUTPUT" 2>&1
  local rc=$? verdict=PASS why=""
  if [[ $rc -eq 124 || $rc -eq 137 ]]; then
    verdict=FAIL why=" timed out after ${limit}s"
  elif [[ $rc -ne $want ]]; then
    verdict=FAIL why=" exit $rc, wanted $want"
  elif [[ -n $pattern ]] && ! grep -qE -- "$pattern" "$OUTPUT"; then
    verdict=FAIL why=" output lacks /$pattern/"
  fi
  {
    echo "=== $name: $* (exit $rc, $((SECONDS - t0))s)"
    cat "$OUTPUT"
  } >>"$LOG"
  echo "$verdict $name ($((SECONDS - t0))s)$why" | tee -a "$LOG"
  if [[ $verdict == PASS ]]; then
    PASSED=$((PASSED + 1))
    return 0
  fi
  FAILED=$((FAILED + 1))
  tail -n 5 "$OUTPUT" | sed 's/^/    /'
  return 1
}

finish() {
  {
    echo "--- figures ($FIGURES)"
    cat "$FIGURES"
    echo "$PASSED passed, $FAILED failed"
  } | tee -a "$LOG"
  exit "$1"
}

say "reshardctl gpu-check: $(date -u +%FT%TZ), bundle $BUNDLE"
head -n 4 "$BUNDLE/MANIFEST" 2>/dev/null | tee -a "$LOG"
figure "bundle: $(sed -n 's/^commit: //p' "$BUNDLE/MANIFEST" 2>/dev/null)"

# 1. The GPU.
if ! check "nvidia-smi" 20 0 nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem \
  --format=csv,noheader; then
  say "no usable GPU: nvidia-smi is missing or fails; the GPU checks cannot run here"
  check "no GPU: gpu_selftest skips (exit 77)" 30 77 "$BIN/gpu_selftest" --quick
  check "no GPU: run --backend nccl exits 2 with the reason" 30 "2:nccl backend is not available" \
    "$BIN/reshardctl" run --backend nccl "$SAMPLES/single_gpu_steps.ir"
  finish 3
fi
figure "gpu: $(head -n 1 "$OUTPUT")"
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
figure "gpus: $GPUS"

# 2. NCCL: which, and does a communicator come up.
check "NCCL found and loadable" 30 "0:^NCCL used" "$BIN/gpu_selftest" --nccl-list
grep '^NCCL' "$OUTPUT" | sed 's/^/nccl: /' >>"$FIGURES"
NCCL_USED=$(awk '/^NCCL used/ {print $3}' "$OUTPUT")
# The newest >= 2.30 and the newest < 2.30 that are usable ("-" marks unusable).
NCCL_SHARED=$(awk '$1 == "NCCL" && $2 != "used" && $2 != "-" && $2 != "none" {print $2, $3}' "$OUTPUT" |
  sort -V | awk '{split($1, v, "."); if (v[1] > 2 || (v[1] == 2 && v[2] >= 30)) lib = $2} END {print lib}')
NCCL_OLD=$(awk '$1 == "NCCL" && $2 != "used" && $2 != "-" && $2 != "none" {print $2, $3}' "$OUTPUT" |
  sort -V | awk '{split($1, v, "."); if (v[1] == 2 && v[2] < 30) lib = $2} END {print lib}')
check "NCCL init (NCCL_DEBUG=INFO), 1 rank" 60 "0:NCCL INFO" \
  env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV "$BIN/reshardctl" run --backend nccl "$SAMPLES/single_gpu_steps.ir"
{
  echo "--- NCCL_DEBUG=INFO excerpt"
  grep -m 20 'NCCL INFO' "$OUTPUT"
} >>"$LOG"
grep -m 1 -o 'NCCL version [^ ]*' "$OUTPUT" | sed 's/^/nccl init: /' >>"$FIGURES"

# 3. The self-test in full.
if check "gpu_selftest (kernels, 1-rank plans, bandwidth)" 120 0 "$BIN/gpu_selftest"; then :; fi
cp "$OUTPUT" "$OUT_DIR/selftest.txt"
grep -E '^(INFO|PASS|FAIL|SKIP|BENCH)' "$OUTPUT" | sed 's/^/selftest: /' >>"$FIGURES"

# 4. Memory errors in the kernels and the backend.
SANITIZER=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if [[ -n $SANITIZER ]]; then
  check "compute-sanitizer memcheck: gpu_selftest --quick" 120 "0:ERROR SUMMARY: 0 errors" \
    "$SANITIZER" --tool memcheck --error-exitcode 99 "$BIN/gpu_selftest" --quick
  grep -m 1 'ERROR SUMMARY' "$OUTPUT" | sed 's/^/memcheck: /' >>"$FIGURES"
else
  say "SKIP compute-sanitizer (not found)"
fi

# 5. `run` on one GPU: a plan whose step launches kernels, then at 64 MiB.
check "run --backend nccl, 1 rank (local kernels)" 60 "0:passed, 0 failed" \
  "$BIN/reshardctl" run --backend nccl "$SAMPLES/single_gpu_steps.ir" --seed 3
check "run --backend nccl, 1 rank, --scale 8192 --iters 5" 90 "0:passed, 0 failed" \
  "$BIN/reshardctl" run --backend nccl "$SAMPLES/single_gpu_steps.ir" --seed 3 --scale 8192 --iters 5
grep -E '^ +[0-9]+ ' "$OUTPUT" | sed 's/^/run 1 rank: /' >>"$FIGURES"

# 6. What must exit 2 with a reason.
if ((GPUS < 2)); then
  check "2-rank seed on 1 GPU exits 2" 60 "2:need 2 GPUs, but 1 GPU" \
    "$BIN/reshardctl" run --apply --backend nccl "$SAMPLES/seed_mlp_before.ir"
fi
check "CUDA_VISIBLE_DEVICES= exits 2" 60 "2:no usable GPU" \
  env CUDA_VISIBLE_DEVICES= "$BIN/reshardctl" run --backend nccl "$SAMPLES/single_gpu_steps.ir"
check "no NCCL exits 2" 30 "2:cannot load NCCL" \
  env RESHARDCTL_NCCL_LIB=/nonexistent/libnccl.so.2 "$BIN/reshardctl" run --backend nccl "$SAMPLES/single_gpu_steps.ir"
# Sharing with an NCCL < 2.30: a real one where found, else the bundle's fake
# 2.27 (refused before any NCCL call, so a fake suffices).
old=${NCCL_OLD:-$FAKES/nccl-2.27/libnccl.so.2}
if ((GPUS < 2)); then
  check "GPU sharing asked with NCCL < 2.30 exits 2 ($old)" 60 "2:needs NCCL >= 2.30" \
    env RESHARDCTL_ALLOW_SHARED_GPU=1 RESHARDCTL_NCCL_LIB="$old" \
    "$BIN/reshardctl" run --apply --backend nccl "$SAMPLES/seed_mlp_before.ir"
  check "gpu_selftest --shared with NCCL < 2.30 fails (not SKIP)" 60 "1:2 rank\(s\) cannot start although asked for" \
    env RESHARDCTL_NCCL_LIB="$old" "$BIN/gpu_selftest" --two-ranks --shared
fi

# 7. Two ranks on one GPU: NCCL >= 2.30 only.
if [[ -z $NCCL_SHARED ]]; then
  say "SKIP two ranks on one GPU: no NCCL >= 2.30 found (in use: NCCL ${NCCL_USED:-none})"
  figure "shared GPU: not checked (no NCCL >= 2.30)"
else
  say "two ranks on one GPU with $NCCL_SHARED"
  export RESHARDCTL_NCCL_LIB=$NCCL_SHARED RESHARDCTL_ALLOW_SHARED_GPU=1 RESHARDCTL_NCCL_TIMEOUT_S=60
  check "shared GPU: gpu_selftest --two-ranks --shared" 120 "0:nccl backend, 2 rank" \
    "$BIN/gpu_selftest" --two-ranks --shared
  grep -E '^(PASS|FAIL) nccl backend' "$OUTPUT" | sed 's/^/shared selftest: /' >>"$FIGURES"
  check "shared GPU: run p->r, p->s, s->r, s(0)->s(1), uneven, between meshes" 60 "0:passed, 0 failed" \
    "$BIN/reshardctl" run --backend nccl "$SAMPLES/two_rank_cases.ir" --seed 5
  check "shared GPU: the seed program (--apply)" 60 "0:passed, 0 failed" \
    "$BIN/reshardctl" run --apply --backend nccl "$SAMPLES/seed_mlp_before.ir"
  check "shared GPU: 4 ranks on one GPU exceed NCCL's 2 and exit 2" 60 "2:documents at most 2" \
    "$BIN/reshardctl" run --apply --backend nccl "$SAMPLES/tp_mlp_2x2_before.ir"
  check "shared GPU: bus bandwidth, 32 MiB per tensor" 120 "0:passed, 0 failed" \
    "$BIN/reshardctl" run --backend nccl "$SAMPLES/two_rank_bandwidth.ir" --scale 4096 --iters 5
  grep -E '^ +[0-9]+ ' "$OUTPUT" | sed 's/^/shared busbw (cost model: 370 GB\/s per link): /' >>"$FIGURES"
  unset RESHARDCTL_NCCL_LIB RESHARDCTL_ALLOW_SHARED_GPU
fi

((FAILED == 0)) && finish 0
finish 1
