#!/usr/bin/env bash
# Benchmark: `reshardctl apply` on large generated programs (renumbered
# copies of the seed's training program), reporting wall time, throughput and
# peak RSS as ratios to the input size, all measured in one run. `list_s` is
# the log scanner alone (`reshardctl list`, which parses nothing) on the same
# file: the share of every command's time spent finding the program.
#   scripts/bench.sh [OPS...]      default: 100000 1000000
# Needs perl (Debian's perl-base) and GNU time (package `time`) for RSS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tool=$root/build/reshardctl
[ -x "$tool" ] || { echo "build first: scripts/setup.sh" >&2; exit 2; }
seed=$root/samples/seed_mlp_before.ir
work=${BENCH_DIR:-$(mktemp -d)}
mkdir -p "$work"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000)

# Copy k of the seed's op lines, with every %N shifted by k * (values per copy).
generate() {  # generate OPS FILE
  perl -e '
    my ($ops, $seed) = @ARGV;
    open(my $in, "<", $seed) or die; my @lines = grep { /^    \(/ } <$in>;
    my $values = 0; for (@lines) { while (/%(\d+)/g) { $values = $1 + 1 if $1 + 1 > $values } }
    print "{\n"; my $written = 0;
    for (my $k = 0; $written < $ops; ++$k) {
      my $off = $k * $values;
      for my $l (@lines) { last if $written >= $ops; (my $c = $l) =~ s/%(\d+)/"%".($1+$off)/ge; print $c; ++$written }
    }
    print "}\n";' "$1" "$seed" > "$2"
}

printf "%-9s %9s %9s %9s %10s %9s %9s %9s %10s\n" ops input_MB wall_s MB/s peak_MB rss/input reshards list_s list/apply
for ops in "${sizes[@]}"; do
  in=$work/bench_$ops.ir out=$work/bench_$ops.out.ir
  [ -f "$in" ] || generate "$ops" "$in"
  bytes=$(stat -c %s "$in")
  # Warm the page cache so the figure is the tool, not the disk.
  cat "$in" > /dev/null
  read -r wall rss_kb < <(/usr/bin/time -f "%e %M" "$tool" apply "$in" -o "$out" 2>&1 >/dev/null | tail -1)
  reshards=$(grep -c '"dist_op.reshard"' "$out" || true)
  list_wall=$( { /usr/bin/time -f "%e" "$tool" list "$in" >/dev/null; } 2>&1 | tail -1)
  awk -v ops="$ops" -v b="$bytes" -v w="$wall" -v r="$rss_kb" -v n="$reshards" -v l="$list_wall" 'BEGIN {
    mb = b / 1e6; printf "%-9d %9.1f %9.3f %9.0f %10.1f %9.2f %9d %9.3f %10.3f\n", ops, mb, w, (w > 0 ? mb / w : 0),
      r / 1024, r * 1024 / b, n, l, (w > 0 ? l / w : 0) }'
done
echo "(inputs in $work)"
