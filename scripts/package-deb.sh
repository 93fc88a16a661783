#!/usr/bin/env bash
# Builds the Debian package of reshardctl from a configured build folder
# (cmake/install.cmake holds the install rules and the CPack settings).
#   scripts/package-deb.sh [build-dir [output-dir]]
# Prints the path of the .deb. Needs dpkg-dev (dpkg-shlibdeps) for Depends.
# The version is `git describe` of the build's sources now, at package time
# (cmake/package_version.cmake), not when the folder was configured: a
# package built after a new commit or tag carries it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=$(mkdir -p "${2:-$build/packages}" && cd "${2:-$build/packages}" && pwd)
cached() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
source_dir=$(cached CMAKE_HOME_DIRECTORY)
version=$(cmake -DSOURCE_DIR="${source_dir:-$root}" -DFALLBACK="$(cached CMAKE_PROJECT_VERSION)" \
  -P "$root/cmake/package_version.cmake")
cmake --build "$build" --target reshardctl >/dev/null
(cd "$build" && cpack -G DEB -B "$out" -D CPACK_PACKAGE_VERSION="$version" >/dev/null)
ls "$out"/reshardctl_"$version"[-_]*.deb
