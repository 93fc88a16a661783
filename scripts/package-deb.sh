#!/usr/bin/env bash
# Builds the Debian package of reshardctl from a configured build folder
# (cmake/install.cmake holds the install rules and the CPack settings).
#   scripts/package-deb.sh [build-dir [output-dir]]
# Prints the path of the .deb. Needs dpkg-dev (dpkg-shlibdeps) for Depends.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=$(mkdir -p "${2:-$build/packages}" && cd "${2:-$build/packages}" && pwd)
cmake --build "$build" --target reshardctl >/dev/null
(cd "$build" && cpack -G DEB -B "$out" >/dev/null)
ls "$out"/reshardctl_*.deb
