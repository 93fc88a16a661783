#!/usr/bin/env bash
# scripts/gpu-check.sh on a machine without a GPU (registered by cmake/gpu.cmake):
#   gpu_check_test.sh SOURCE_DIR BUILD_DIR RESHARDCTL GPU_SELFTEST
# 1. as it is: the "no GPU" outcome, exit 3, a clear message, the last line
#    `N passed, M failed`, the log and the figures written;
# 2. under a fake nvidia-smi and a pip NCCL 2.30 (a fake one, in a fake venv on
#    PATH): every stage runs; what needs no GPU passes (NCCL found, the newest
#    >= 2.30 chosen for sharing, exit 2 with CUDA_VISIBLE_DEVICES= and without
#    NCCL); what needs one fails; exit 1.
# Exit 77 (skipped) where a real nvidia-smi is.
set -u
source_dir=$1 build_dir=$2 tool=$3 selftest=$4
if command -v nvidia-smi >/dev/null; then
  echo "a GPU machine: scripts/gpu-check.sh runs for real there"
  exit 77
fi
fail() {
  echo "FAIL: $*"
  exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A bundle made of this build's binaries (scripts/gpu-bundle.sh's layout).
bundle=$work/bundle
mkdir -p "$bundle/bin" "$bundle/samples" "$bundle/test/nccl-2.27"
ln -s "$tool" "$bundle/bin/reshardctl"
ln -s "$selftest" "$bundle/bin/gpu_selftest"
cp "$source_dir"/samples/*.ir "$bundle/samples/"
cp "$build_dir/fake-nccl/2_27/libnccl.so.2" "$bundle/test/nccl-2.27/"
check=$source_dir/scripts/gpu-check.sh

# 1. No GPU.
out=$(env GPU_CHECK_BUDGET_S=60 "$check" "$bundle" "$work/out1")
status=$?
[[ $status -eq 3 ]] || fail "no GPU: exit $status, expected 3"$'\n'"$out"
grep -q '^no usable GPU: nvidia-smi is missing or fails' <<<"$out" || fail "no GPU: no clear message"$'\n'"$out"
[[ $(tail -n 1 <<<"$out") =~ ^[0-9]+\ passed,\ [1-9][0-9]*\ failed$ ]] || fail "no GPU: last line: $(tail -n 1 <<<"$out")"
[[ -s $work/out1/gpu-check.log && -f $work/out1/figures.txt ]] || fail "no GPU: log or figures missing"

# 2. A fake GPU and a fake pip NCCL 2.30.
mkdir -p "$work/fakebin" "$work/venv/bin" "$work/venv/lib/python3.12/site-packages/nvidia/nccl/lib"
cat >"$work/fakebin/nvidia-smi" <<'EOF'
#!/bin/sh
if [ "$1" = "-L" ]; then echo "GPU 0: NVIDIA H200 (UUID: GPU-fake)"; else echo "NVIDIA H200, 143771 MiB, 580.0, 345 MHz, 3201 MHz"; fi
EOF
printf '#!/bin/sh\n' >"$work/venv/bin/python3"
chmod +x "$work/fakebin/nvidia-smi" "$work/venv/bin/python3"
pip_nccl=$work/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2
cp "$build_dir/fake-nccl/2_30/libnccl.so.2" "$pip_nccl"
out=$(env PATH="$work/fakebin:$work/venv/bin:$PATH" GPU_CHECK_BUDGET_S=90 "$check" "$bundle" "$work/out2")
status=$?
[[ $status -eq 1 ]] || fail "fake GPU: exit $status, expected 1"$'\n'"$out"
for line in "PASS nvidia-smi" "PASS NCCL found and loadable" "PASS CUDA_VISIBLE_DEVICES= exits 2" \
  "PASS no NCCL exits 2" "two ranks on one GPU with $pip_nccl" "FAIL gpu_selftest (kernels"; do
  grep -qF -- "$line" <<<"$out" || fail "fake GPU: no '$line' in"$'\n'"$out"
done
grep -qF "nccl: NCCL 2.30.3 $pip_nccl (from pip nvidia-nccl ($work/venv))" "$work/out2/figures.txt" ||
  fail "fake GPU: the pip NCCL is not in the figures: $(cat "$work/out2/figures.txt")"
[[ $(tail -n 1 <<<"$out") =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]] || fail "fake GPU: last line"
echo ok
