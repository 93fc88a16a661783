#!/usr/bin/env bash
# Installs what reshardctl needs from Debian's packages (if missing) and
# builds it into build/. Safe to run again. Used by the README's quick start
# and by CI (.ci/run), where warnings are errors.
set -euo pipefail
cd "$(dirname "$0")/.."

# python3-jsonschema and python3-yaml check the JSON schemas and the
# pre-commit hooks, patch and git the diffs, dpkg-dev builds the .deb (tests).
scripts/install-packages.sh cmake g++ make python3 libcli11-dev nlohmann-json3-dev tao-pegtl-dev libfmt-dev doctest-dev \
  python3-jsonschema python3-yaml patch git dpkg-dev

werror=OFF
[ -n "${CI:-}" ] && werror=ON
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DRESHARDCTL_WERROR=$werror >/dev/null
cmake --build build -j "$(nproc)"
