#!/usr/bin/env bash
# Installs what reshardctl needs from Debian's packages (if missing) and
# builds it into build/. Safe to run again. Used by the README's quick start
# and by CI (.ci/run), where warnings are errors.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-packages.sh cmake g++ make python3 libcli11-dev nlohmann-json3-dev tao-pegtl-dev libfmt-dev doctest-dev libeigen3-dev

werror=OFF
[ -n "${CI:-}" ] && werror=ON
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DRESHARDCTL_WERROR=$werror >/dev/null
cmake --build build -j "$(nproc)"
