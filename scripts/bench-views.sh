#!/usr/bin/env bash
# Benchmark of print's views on the programs scripts/bench.sh generates
# (renumbered copies of the seed after apply): wall time, output size and
# peak RSS of the plain reprint and of each view, all measured in one run.
#   scripts/bench-views.sh [OPS...]      default: 100000 1000000
# Needs what bench.sh needs (perl, GNU time).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tool=$root/build/reshardctl
[ -x "$tool" ] || { echo "build first: scripts/setup.sh" >&2; exit 2; }
work=${BENCH_DIR:-$(mktemp -d)}
mkdir -p "$work"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000)

printf "%-9s %-34s %8s %10s %9s\n" ops command wall_s output_MB peak_MB
for ops in "${sizes[@]}"; do
  # bench.sh writes the program and its apply output (with the reshards) to $work.
  BENCH_DIR=$work "$root/scripts/bench.sh" "$ops" >/dev/null
  in=$work/bench_$ops.out.ir
  cat "$in" >/dev/null  # warm the page cache
  middle=$(( ops / 2 ))
  for args in "--emit=ir" "--brief" "--emit=dot" "--emit=html" "--emit=dot --focus %$middle --depth 3" \
              "--emit=html --focus %$middle --depth 3"; do
    read -r -a words <<< "$args"
    read -r wall rss_kb < <(/usr/bin/time -f "%e %M" "$tool" print "${words[@]}" "$in" -o "$work/view.out" 2>&1 >/dev/null | tail -1)
    awk -v ops="$ops" -v a="$args" -v w="$wall" -v b="$(stat -c %s "$work/view.out")" -v r="$rss_kb" \
      'BEGIN { printf "%-9d %-34s %8.2f %10.1f %9.1f\n", ops, a, w, b / 1e6, r / 1024 }'
  done
done
echo "(inputs in $work)"
