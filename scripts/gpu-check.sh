#!/usr/bin/env bash
# GPU check for reshardctl, for a machine with an NVIDIA GPU (target: one H200).
# Builds with CUDA/NCCL into build-gpu, runs the unit tests, gpu_selftest (every
# CUDA kernel against its host reference, the NCCL backend against the reference
# executor, kernel bandwidth against a device-to-device copy), then
# `reshardctl run --backend nccl` on the 1-rank sample (also in the MPI mode where
# built with MPI) and, where a pip NCCL >= 2.30
# (nvidia-nccl-cu13) lets two ranks share the GPU, on the 2-rank samples.
#
# Every stage runs under `timeout`; the whole script stays under 5 minutes
# (GPU_CHECK_BUDGET_S, default 280). The log and the figures go to $OUT when set
# (else build-gpu/gpu-check/): gpu-check.log, selftest.txt, run-*.txt, summary.txt.
# Exit status: 0 when every stage that ran passed, 1 otherwise.
#
# Environment: GPU_CHECK_BUDGET_S, GPU_CHECK_JOBS (build parallelism, default
# nproc), GPU_CHECK_SCALE (--scale of the bandwidth run, default 4096),
# GPU_CHECK_SKIP_BUILD=1 (use binaries already in build-gpu).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT_DIR=${OUT:-$ROOT/build-gpu/gpu-check}
mkdir -p "$OUT_DIR"
LOG=$OUT_DIR/gpu-check.log
: >"$LOG"
exec > >(tee -a "$LOG") 2>&1

START=$(date +%s)
BUDGET=${GPU_CHECK_BUDGET_S:-280}
JOBS=${GPU_CHECK_JOBS:-$(nproc)}
SCALE=${GPU_CHECK_SCALE:-4096}
SUMMARY=()
FAILED=0

remaining() { echo $((BUDGET - ($(date +%s) - START))); }

# stage NAME LIMIT_S CMD...: runs CMD under timeout (never past the budget),
# records PASS/FAIL/TIMEOUT; returns CMD's status.
stage() {
  local name=$1 limit=$2
  shift 2
  local left
  left=$(remaining)
  if ((left < 10)); then
    SUMMARY+=("SKIP    $name (out of time)")
    return 124
  fi
  ((limit > left - 5)) && limit=$((left - 5))
  echo "=== $name (limit ${limit}s): $*"
  local t0=$(date +%s)
  timeout --kill-after=5 "$limit" "$@"
  local rc=$?
  local took=$(($(date +%s) - t0))
  case $rc in
    0) SUMMARY+=("PASS    $name (${took}s)") ;;
    124 | 137) SUMMARY+=("TIMEOUT $name (${limit}s)"); FAILED=1 ;;
    *) SUMMARY+=("FAIL    $name (exit $rc, ${took}s)"); FAILED=1 ;;
  esac
  return $rc
}

echo "reshardctl gpu-check: $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
timeout 20 nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv || echo "nvidia-smi not usable"

# 1. Build.
if [[ ${GPU_CHECK_SKIP_BUILD:-0} != 1 ]]; then
  if stage "configure (CUDA, sm_90)" 60 cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRESHARDCTL_GPU=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90; then
    stage "build" 150 cmake --build build-gpu -j"$JOBS"
  elif [[ -x build-gpu/gpu_selftest ]]; then
    echo "configure failed; using the binaries already in build-gpu"
  fi
fi
if [[ ! -x build-gpu/reshardctl || ! -x build-gpu/gpu_selftest ]]; then
  echo "no binaries in build-gpu; stopping"
  printf '%s\n' "${SUMMARY[@]}" | tee "$OUT_DIR/summary.txt"
  exit 1
fi

# 2. Unit and golden tests (gpu.selftest.quick among them).
stage "ctest" 60 ctest --test-dir build-gpu -j"$JOBS" --output-on-failure

# 3. Kernels vs the host reference, the NCCL backend vs the reference executor,
#    kernel bandwidth vs cudaMemcpy D2D.
stage "gpu_selftest" 60 bash -o pipefail -c "build-gpu/gpu_selftest | tee '$OUT_DIR/selftest.txt'"

# 4. `run --backend nccl` on the 1-rank sample: correctness, then at a size
#    where bandwidth means something.
run_sample() {  # NAME FILE EXTRA_ARGS...
  local name=$1 file=$2
  shift 2
  stage "run $name" 40 bash -o pipefail -c "build-gpu/reshardctl run '$file' --backend nccl --apply $* | tee '$OUT_DIR/run-$name.txt'"
}
if build-gpu/reshardctl run --help >/dev/null 2>&1; then
  run_sample single_rank samples/single_rank.ir --seed 1
  run_sample single_rank_scaled samples/single_rank.ir --seed 1 --scale "$SCALE" --iters 5
else
  SUMMARY+=("SKIP    run --backend nccl (this build has no 'run' subcommand yet)")
fi

# 4b. The multi-process (mpirun) mode: on one GPU only a world of one process
#     can run it (--launcher mpi, an MPI singleton): unique id over MPI,
#     ncclCommInitRank, ncclCommSplit, the piece exchange.
if grep -qs RESHARDCTL_HAVE_MPI build-gpu/src/tool/CMakeFiles/reshardctl.dir/flags.make; then
  run_sample single_rank_mpi samples/single_rank.ir --seed 1 --launcher mpi
else
  SUMMARY+=("SKIP    multi-process mode (built without MPI)")
fi
SUMMARY+=("SKIP    2+ MPI processes (one GPU: NCCL 2.28 refuses two ranks on one GPU)")

# 5. Two ranks on one GPU: only with NCCL >= 2.30 (NCCL_MULTI_RANK_GPU_ENABLE),
#    which the pip package nvidia-nccl-cu13 may bring; NCCL 2.28 refuses it.
PIP_NCCL=$(python3 - <<'PY' 2>/dev/null
import ctypes, glob, os
try:
    import nvidia.nccl
    roots = list(nvidia.nccl.__path__)
except Exception:
    roots = []
for root in roots:
    for lib in glob.glob(os.path.join(root, "lib", "libnccl.so*")):
        try:
            handle = ctypes.CDLL(lib)
            version = ctypes.c_int()
            if handle.ncclGetVersion(ctypes.byref(version)) == 0:
                print(version.value, lib)
                raise SystemExit
        except OSError:
            pass
PY
)
PIP_VERSION=${PIP_NCCL%% *}
PIP_LIB=${PIP_NCCL#* }
if [[ -n $PIP_NCCL && $PIP_VERSION -ge 23000 ]]; then
  echo "pip NCCL $PIP_VERSION at $PIP_LIB: two ranks share GPU 0"
  # LD_PRELOAD wins over the RUNPATH to /usr/local/cuda; NVLS does not work with
  # shared GPUs (NCCL docs), so it is off.
  export LD_PRELOAD=$PIP_LIB LD_LIBRARY_PATH=$(dirname "$PIP_LIB"):${LD_LIBRARY_PATH:-}
  export RESHARDCTL_ALLOW_SHARED_GPU=1 NCCL_MULTI_RANK_GPU_ENABLE=1 NCCL_NVLS_ENABLE=0 RESHARDCTL_NCCL_TIMEOUT_S=30
  stage "gpu_selftest, 2 ranks on one GPU (NCCL $PIP_VERSION)" 60 \
    bash -o pipefail -c "build-gpu/gpu_selftest --quick | tee '$OUT_DIR/selftest-shared.txt'"
  if build-gpu/reshardctl run --help >/dev/null 2>&1; then
    run_sample seed_mlp_before samples/seed_mlp_before.ir --seed 1
    run_sample seed_mlp_after samples/seed_mlp_after.ir --seed 1
  fi
  unset LD_PRELOAD RESHARDCTL_ALLOW_SHARED_GPU NCCL_MULTI_RANK_GPU_ENABLE
else
  SUMMARY+=("SKIP    2-rank samples (no pip NCCL >= 2.30: found '${PIP_NCCL:-none}')")
fi

{
  echo "=== summary ($(($(date +%s) - START))s of ${BUDGET}s)"
  printf '%s\n' "${SUMMARY[@]}"
  echo "--- figures"
  grep -hE '^(INFO|BENCH|PASS|FAIL|SKIP)' "$OUT_DIR"/selftest*.txt 2>/dev/null || true
  tail -n 3 "$OUT_DIR"/run-*.txt 2>/dev/null || true
} | tee "$OUT_DIR/summary.txt"
exit $FAILED
