#!/usr/bin/env bash
# The differential test at length: N generated programs from seed SEED (the
# ctest `differential.programs` runs 200 from seed 1), every property of
# tests/differential/checks.h, the command-line checks on every 50th program.
# Prints each failing program with its seed; rerun one with
#   build/differential --seed SEED --count 1 --print
#   scripts/differential.sh [N [SEED [build-dir]]]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
count=${1:-10000}
seed=${2:-$(( $(date +%s) % 1000000 ))}
build=$(cd "${3:-$root/build}" && pwd)
[ -x "$build/differential" ] && [ -x "$build/reshardctl" ] ||
  { echo "build first: cmake --build $build (missing differential or reshardctl)" >&2; exit 2; }
echo "differential: $count programs from seed $seed" >&2
exec "$build/differential" --count "$count" --seed "$seed" --tool "$build/reshardctl" --tool-every 50 \
  --options-every 1 --max-shown 5
