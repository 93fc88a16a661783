#!/usr/bin/env bash
# Builds the GPU check bundle: a folder that runs on a GPU machine which has
# only a driver and some NCCL (no compiler, no -dev packages, no network):
#
#   DIR/bin/reshardctl, DIR/bin/gpu_selftest   (CUDA runtime, libstdc++, libgcc
#                                               and fmt linked in; RUNPATH
#                                               $ORIGIN/../lib; NCCL opened at
#                                               run time, see nccl_library.h)
#   DIR/lib/                                   (empty: a libnccl.so.2 put here
#                                               is found first, by the loader)
#   DIR/gpu-check.sh, DIR/samples/*.ir         (the check and its inputs)
#   DIR/test/nccl-2.27/libnccl.so.2            (a fake old NCCL for one exit-2 check)
#   DIR/MANIFEST                               (commit, sizes, what the binaries need)
#
#   scripts/gpu-bundle.sh DIR      (e.g. .gpu-bundle, which .gitignore ignores)
#
# Then checks what it built: at most 64 MiB; every NEEDED library one of
# glibc's, and no glibc symbol newer than 2.35 (Ubuntu 22.04); `env -i` runs; and, as root, the binaries in a chroot holding glibc
# alone (the closest to a bare host this machine can make): --help works,
# `run --backend nccl` exits 2 naming the missing NCCL, gpu_selftest skips.
#
# Environment: GPU_BUNDLE_BUILD (build folder, default build-bundle),
# GPU_BUNDLE_JOBS (default 2), CMAKE_CUDA_ARCHITECTURES (default 90: H100/H200).
set -euo pipefail
if [[ $# -ne 1 ]]; then
  echo "usage: scripts/gpu-bundle.sh DIR" >&2
  exit 2
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
DIR=$(cd "$1" && pwd)
BUILD=${GPU_BUNDLE_BUILD:-$ROOT/build-bundle}
JOBS=${GPU_BUNDLE_JOBS:-2}
LIMIT_BYTES=$((64 * 1024 * 1024))
# The libraries every glibc system has; anything else must be inside the bundle.
GLIBC_LIBS='^(libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|ld-linux-x86-64\.so\.2)$'

fail() {
  echo "gpu-bundle: FAIL: $*" >&2
  exit 1
}

launchers=()
if command -v ccache >/dev/null; then
  launchers=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DRESHARDCTL_BUNDLE=ON -DRESHARDCTL_GPU=ON \
  -DRESHARDCTL_LINK_CHECK=OFF -DCMAKE_CUDA_ARCHITECTURES="${CMAKE_CUDA_ARCHITECTURES:-90}" "${launchers[@]}" >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target reshardctl gpu_selftest reshardctl_fake_nccl_2_27

rm -rf "${DIR:?}/bin" "${DIR:?}/lib" "${DIR:?}/samples" "${DIR:?}/test"
mkdir -p "$DIR/bin" "$DIR/lib" "$DIR/samples" "$DIR/test/nccl-2.27"
for binary in reshardctl gpu_selftest; do
  # Symbols off (not the kernels' line info, which compute-sanitizer reads).
  strip --strip-unneeded -o "$DIR/bin/$binary" "$BUILD/$binary"
done
cp "$ROOT/scripts/gpu-check.sh" "$DIR/gpu-check.sh"
# A fake NCCL 2.27 (tests/fake_nccl.cpp) for gpu-check.sh's "sharing asked
# with NCCL < 2.30" where the machine has no real one that old.
cp "$BUILD/fake-nccl/2_27/libnccl.so.2" "$DIR/test/nccl-2.27/"
cp "$ROOT"/samples/*.ir "$DIR/samples/"

# --- What the binaries need.
glibc_needed=""
for binary in "$DIR"/bin/*; do
  while read -r lib; do
    [[ $lib =~ $GLIBC_LIBS ]] || fail "$(basename "$binary") needs $lib, which a bare host may lack"
  done < <(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  # shellcheck disable=SC2016  # a literal $ORIGIN
  readelf -d "$binary" | grep -q 'R.*PATH.*\[\$ORIGIN/../lib\]' || fail "$(basename "$binary") has no \$ORIGIN/../lib RUNPATH"
  version=$(objdump -T "$binary" | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -1)
  # Ubuntu 22.04's glibc; Debian 12, Ubuntu 24.04 and later have more.
  [[ $(printf '%s\n' "$version" GLIBC_2.35 | sort -V | tail -1) == GLIBC_2.35 ]] ||
    fail "$(basename "$binary") needs $version, newer than 2.35"
  glibc_needed="$glibc_needed $(basename "$binary"):$version"
done
# ldd under env -i: nothing resolved from outside glibc.
for binary in "$DIR"/bin/*; do
  env -i ldd "$binary" | grep -Ev 'linux-vdso|ld-linux|lib(c|m|dl|pthread|rt)\.so' &&
    fail "ldd lists more than glibc for $(basename "$binary")"
done
env -i "$DIR/bin/reshardctl" --help >/dev/null || fail "env -i reshardctl --help"
env -i "$DIR/bin/reshardctl" run "$DIR/samples/two_rank_cases.ir" >/dev/null || fail "env -i reshardctl run (cpu)"

# --- A chroot with glibc alone: no libstdc++, no fmt, no CUDA, no NCCL.
if [[ $(id -u) -eq 0 ]] && command -v chroot >/dev/null; then
  jail=$(mktemp -d)
  trap 'rm -rf "$jail"' EXIT
  mkdir -p "$jail/lib64" "$jail/lib/x86_64-linux-gnu" "$jail/bundle" "$jail/tmp"
  for lib in libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1; do
    cp -L "/lib/x86_64-linux-gnu/$lib" "$jail/lib/x86_64-linux-gnu/"
  done
  cp -L /lib64/ld-linux-x86-64.so.2 "$jail/lib64/"
  cp -r "$DIR/bin" "$DIR/lib" "$DIR/samples" "$jail/bundle/"
  chroot "$jail" /bundle/bin/reshardctl --help >/dev/null || fail "chroot: reshardctl --help"
  chroot "$jail" /bundle/bin/reshardctl run /bundle/samples/two_rank_cases.ir >/dev/null || fail "chroot: run (cpu)"
  set +e
  err=$(chroot "$jail" /bundle/bin/reshardctl run --backend nccl /bundle/samples/single_gpu_steps.ir 2>&1 >/dev/null)
  status=$?
  chroot "$jail" /bundle/bin/gpu_selftest --quick >/dev/null 2>&1
  selftest=$?
  set -e
  [[ $status -eq 2 && $err == *"cannot load NCCL"* ]] || fail "chroot: run --backend nccl: exit $status: $err"
  [[ $selftest -eq 77 ]] || fail "chroot: gpu_selftest --quick: exit $selftest, expected 77 (no GPU)"
  echo "gpu-bundle: chroot with glibc alone: --help, run (cpu), run --backend nccl -> exit 2 (no NCCL), gpu_selftest -> 77"
else
  echo "gpu-bundle: not root: the chroot check is left out"
fi

size=$(du -sb "$DIR" | cut -f1)
((size <= LIMIT_BYTES)) || fail "$DIR is $size bytes, over 64 MiB"
{
  echo "reshardctl GPU bundle"
  echo "commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "built: $(date -u +%FT%TZ) on $(sed -n 's/^PRETTY_NAME="\(.*\)"/\1/p' /etc/os-release), $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo 'nvcc ?')"
  echo "cuda architectures: ${CMAKE_CUDA_ARCHITECTURES:-90}"
  echo "needs: glibc (newest symbol:$glibc_needed), the NVIDIA driver (libcuda.so.1, CUDA 13), NCCL >= 2.18 (libnccl.so.2)"
  echo "size: $size bytes"
  (cd "$DIR" && find . -type f ! -name MANIFEST -printf '%s %p\n' | sort -k2)
} >"$DIR/MANIFEST"
echo "gpu-bundle: $DIR ($size bytes): bin/reshardctl, bin/gpu_selftest, gpu-check.sh, samples/; needs glibc:$glibc_needed"
