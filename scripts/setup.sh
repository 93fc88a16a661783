#!/usr/bin/env bash
# Installs what reshardctl needs from Debian's packages (if missing) and
# builds it into build/. Safe to run again. Used by the README's quick start
# and by CI (.ci/run), where warnings are errors.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make libcli11-dev nlohmann-json3-dev tao-pegtl-dev libfmt-dev doctest-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "Installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

werror=OFF
[ -n "${CI:-}" ] && werror=ON
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DRESHARDCTL_WERROR=$werror >/dev/null
cmake --build build -j "$(nproc)"
