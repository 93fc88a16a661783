#!/usr/bin/env bash
# Rewrites every expected golden file from the current build's output: the
# golden tests (`ctest -L golden`: tests/golden.cmake's table and the
# command-line cases of tests/ci_tests.cmake) run with GOLDEN_REBASE=1, so each
# runner writes what it got over the expected file instead of comparing
# (tests/golden_lib.sh). The command lines are the tests' own. A test still
# fails when a check other than a golden comparison fails (an exit code, a
# second run that must change nothing).
# Review the result with `git diff tests/golden` before committing: each
# change must be one you meant.
#   scripts/regen-goldens.sh [build-dir]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
[ -x "$build/reshardctl" ] || { echo "build reshardctl first (missing $build/reshardctl)" >&2; exit 2; }

GOLDEN_REBASE=1 ctest --test-dir "$build" -L golden -j 2 --output-on-failure >"$build/regen-goldens.log"
status=$?
grep -h '^rebased ' "$build"/Testing/Temporary/LastTest.log | sort -u
[ $status -eq 0 ] || { echo "some golden tests failed: see $build/regen-goldens.log" >&2; }
git -C "$root" status --short tests/golden samples
echo "Now review: git diff tests/golden"
exit $status
