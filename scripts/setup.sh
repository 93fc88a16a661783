#!/usr/bin/env bash
# Installs what reshardctl needs from Debian's packages (if missing) and
# builds it into build/. Safe to run again. Used by the README's quick start
# and by .ci/run (with --extras --werror).
#   scripts/setup.sh [--extras] [--werror]
#     --extras  also install Graphviz, headless Chromium, tmux and Open MPI (below)
#     --werror  build with warnings as errors (-DRESHARDCTL_WERROR=ON); without
#               it a newer compiler's new warning never stops a user's build
set -euo pipefail
cd "$(dirname "$0")/.."

# python3-jsonschema and python3-yaml check the JSON schemas and the
# pre-commit hooks, patch and git the diffs, dpkg-dev builds the .deb (tests);
# Eigen serves validate's dense kernels.
scripts/install-packages.sh cmake g++ make python3 libcli11-dev nlohmann-json3-dev tao-pegtl-dev libfmt-dev doctest-dev \
  libeigen3-dev python3-jsonschema python3-yaml patch git dpkg-dev
# Optional extras (`scripts/setup.sh --extras`): Graphviz and headless Chromium,
# with which ctest also checks print's views (view.graphviz, view.browser; they
# skip without them) and scripts/regen-pictures.sh redraws docs/, and tmux, in
# which install.bash-completion-tmux types into a real bash, and Open MPI
# (openmpi-bin, libopenmpi-dev), with which the build has its multi-process
# mode (cmake/mpi.cmake) and ctest runs the mpi.* cases under mpirun. Never
# needed to build or use reshardctl.
extras=false werror=OFF
for arg in "$@"; do
  case $arg in
    --extras) extras=true ;;
    --werror) werror=ON ;;
    *) echo "setup.sh: unknown argument '$arg' (expected --extras or --werror)" >&2; exit 2 ;;
  esac
done
if $extras; then
  scripts/install-packages.sh graphviz chromium tmux openmpi-bin libopenmpi-dev
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DRESHARDCTL_WERROR=$werror >/dev/null
cmake --build build -j "$(nproc)"
