#!/usr/bin/env bash
# Rewrites every expected golden file from the current build's output.
# Review the result with `git diff tests/golden` before committing: each
# change must be one you meant.
#   scripts/regen-goldens.sh [build-dir]
set -euo pipefail
shopt -s nullglob  # a golden folder may be empty
root=$(cd "$(dirname "$0")/.." && pwd)
tool=$(cd "${1:-$root/build}" && pwd)/reshardctl
[ -x "$tool" ] || { echo "build reshardctl first (missing $tool)" >&2; exit 2; }

for input in "$root"/tests/golden/pass/*.ir; do
  case $input in *.expected.ir) continue ;; esac
  flags=()
  [ -f "${input%.ir}.flags" ] && read -r -a flags < "${input%.ir}.flags"
  "$tool" apply "${flags[@]}" "$input" -o "${input%.ir}.expected.ir"
done
for input in "$root"/tests/golden/apply/*.ir; do  # apply cases of tests/ci_tests.cmake
  case $input in *.expected.ir) continue ;; esac
  flags=()
  [ -f "${input%.ir}.flags" ] && read -r -a flags < "${input%.ir}.flags"
  "$tool" apply "${flags[@]}" "$input" -o "${input%.ir}.expected.ir"
done
for input in "$root"/tests/golden/errors/*.ir; do
  (cd "$(dirname "$input")" && "$tool" print "$(basename "$input")" -o /dev/null 2>"${input%.ir}.stderr") || true
done
plan_dir=$root/tests/golden/plan
plan_golden() {  # plan_golden INPUT NAME (with the pass flags of INPUT's .flags file)
  local flags=()
  [ -f "${1%.ir}.flags" ] && read -r -a flags < "${1%.ir}.flags"
  "$tool" plan --apply "${flags[@]}" "$1" -o "$plan_dir/$2.plan.txt"
  "$tool" plan --apply --json "${flags[@]}" "$1" -o "$plan_dir/$2.plan.json"
}
for input in "$root"/samples/*_before.ir; do
  name=$(basename "$input" .ir)
  plan_golden "$input" "sample_${name%_before}"
done
for input in "$root"/tests/golden/pass/*.ir; do
  case $input in *.expected.ir) continue ;; esac
  plan_golden "$input" "pass_$(basename "$input" .ir)"
done
for input in "$plan_dir"/*.ir; do
  name=$(basename "$input" .ir)
  case $name in
    bad-*) (cd "$plan_dir" && "$tool" plan "$name.ir" -o /dev/null 2>"$name.stderr") || true ;;
    *) plan_golden "$input" "$name" ;;
  esac
done
git -C "$root" status --short tests/golden
echo "Now review: git diff tests/golden"
