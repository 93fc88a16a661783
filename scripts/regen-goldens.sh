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
for input in "$root"/tests/golden/verify/*.ir; do
  (cd "$(dirname "$input")" && "$tool" verify "$(basename "$input")" 2>"${input%.ir}.stderr") || true
done
plan_dir=$root/tests/golden/plan
plan_golden() {  # plan_golden INPUT NAME (with the pass flags of INPUT's .flags file), from INPUT's folder
  local flags=()
  [ -f "${1%.ir}.flags" ] && read -r -a flags < "${1%.ir}.flags"
  (cd "$(dirname "$1")" &&
   "$tool" plan --apply "${flags[@]}" "$(basename "$1")" -o "$plan_dir/$2.plan.txt" &&
   "$tool" plan --apply --json "${flags[@]}" "$(basename "$1")" -o "$plan_dir/$2.plan.json")
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
# Programs inside logs (tests/logs.cmake): run from the root, as ctest does,
# so outputs name files by relative path.
(
  cd "$root"
  logs=tests/golden/logs train=tests/golden/logs/train.log
  "$tool" list "$train" >"$logs/train.list.txt"
  "$tool" list --json "$train" >"$logs/train.list.json"
  "$tool" list "$logs/cinn_2023.log" >"$logs/cinn_2023.list.txt"
  "$tool" list "$logs/cinn_2025.log" >"$logs/cinn_2025.list.txt"
  "$tool" print "$train" 2>"$logs/train.usage.stderr" || true
  "$tool" print --program 1 "$train" -o "$logs/train.program1.ir"
  "$tool" print "$logs/one_program.log" -o "$logs/one_program.program.ir"
  "$tool" apply --program 1 "$train" -o "$logs/train.program2.ir"
  "$tool" plan --apply --program 1 "$train" -o "$logs/train.plan.txt"
  "$tool" diff --program 1 --program 2 "$train" >"$logs/train.diff.txt" || true
  "$tool" print --program 2 "$logs/cinn_2023.log" -o "$logs/cinn_2023.program2.ir"
  "$tool" print --program 2 "$logs/cinn_2025.log" -o "$logs/cinn_2025.program2.ir"
  for input in "$logs"/bad-*.log; do
    (cd "$logs" && "$tool" print "$(basename "$input")" -o /dev/null 2>"$(basename "${input%.log}").stderr") || true
  done
)
for case_file in "$root"/tests/golden/validate/*.ir "$root"/tests/golden/validate/*.case; do
  name=$(basename "${case_file%.*}")
  REGEN=1 "$root/tests/run_validate_golden.sh" "$tool" "$case_file" "$root/tests/golden/validate/$name.expected"
done
# The views: tests/golden/views/cases.txt lists each expected file and its command.
while read -r expected arguments; do
  case $expected in ''|'#'*) continue ;; esac
  read -r -a words <<< "$arguments"
  (cd "$root" && "$tool" "${words[@]}" > "tests/golden/views/$expected")
done < "$root/tests/golden/views/cases.txt"
git -C "$root" status --short tests/golden
echo "Now review: git diff tests/golden"
