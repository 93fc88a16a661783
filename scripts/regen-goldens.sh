#!/usr/bin/env bash
# Rewrites every expected golden file from the current build's output.
# Review the result with `git diff tests/golden` before committing: each
# change must be one you meant.
#   scripts/regen-goldens.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tool=$(cd "${1:-$root/build}" && pwd)/reshardctl
[ -x "$tool" ] || { echo "build reshardctl first (missing $tool)" >&2; exit 2; }

for input in "$root"/tests/golden/pass/*.ir; do
  case $input in *.expected.ir) continue ;; esac
  flags=()
  [ -f "${input%.ir}.flags" ] && read -r -a flags < "${input%.ir}.flags"
  "$tool" apply "${flags[@]}" "$input" -o "${input%.ir}.expected.ir"
done
for input in "$root"/tests/golden/errors/*.ir; do
  (cd "$(dirname "$input")" && "$tool" print "$(basename "$input")" -o /dev/null 2>"${input%.ir}.stderr") || true
done
git -C "$root" status --short tests/golden
echo "Now review: git diff tests/golden"
