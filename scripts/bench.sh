#!/usr/bin/env bash
# Benchmark: every subcommand of reshardctl on large generated programs of
# two kinds, each size and kind measured in one run: `varied` (every copy of
# the seeds a stage of its own: names, shapes, meshes and layouts differ, as
# in a real multi-stage program) and `repeated` (renumbered copies of one
# seed: the text the parser's memos of repeated dictionaries flatter most).
# Reported: wall time, CPU time (user+sys), throughput of the input, peak RSS
# and its ratio to what the command must hold (the inputs it reads: both for
# `diff`), and how each figure grows from one size to the next (×10 ops
# should cost about ×10: every subcommand is meant to be O(n log n) at worst). `list` is
# the log scanner alone (it parses nothing): the share of every command's
# time spent finding the program in the file.
#
#   scripts/bench.sh [OPS...]      default: 10000 100000 1000000
#
# Environment:
#   BENCH_KINDS=LIST    the kinds of program, in order (default: varied repeated)
#   BENCH_DIR=DIR       keep the generated inputs there (reused when present)
#   BENCH_ONLY=REGEX    time only the commands whose name matches
#   BENCH_OUT=FILE|DIR  where outputs go: /dev/null (default, the tool alone)
#                       or a folder (real files, as users write them)
#   BENCH_TIMEOUT=S     give up on one command after S seconds (default 300)
#   BENCH_MLIR=1        also time `mlir-opt` (Debian: mlir-14-tools) parsing
#                       and printing an MLIR rendering of the same program
# Needs perl (Debian's perl-base), python3 and GNU time (package `time`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tool=$root/build/reshardctl
[ -x "$tool" ] || { echo "build first: scripts/setup.sh" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs GNU time: apt-get install time" >&2; exit 2; }
seed=$root/samples/seed_mlp_before.ir
work=${BENCH_DIR:-$(mktemp -d)}
mkdir -p "$work"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000)
only=${BENCH_ONLY:-.}
timeout_s=${BENCH_TIMEOUT:-300}
out_spec=${BENCH_OUT:-/dev/null}
mlir_opt=$(command -v mlir-opt || command -v mlir-opt-14 || ls /usr/lib/llvm-*/bin/mlir-opt 2>/dev/null | head -1 || true)

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

# A varied program, as a real multi-stage one is: copies of the seeds (a 1-D
# and a 2-D mesh's training step), each copy a stage of its own: its own
# names, its shapes (each of the seed's dimensions times 1, 2 or 3), its mesh
# (1-D of 2 or 4 processes, 2-D of 2x2, 2x4 or 4x2) on its own process ids,
# and on a 2-D mesh its layouts transposed half the time (mesh axes swapped
# in every dims mapping and partial). Seeded: the same file every time.
generate_varied() {  # generate_varied OPS FILE
  perl -e '
    my ($ops, @seeds) = @ARGV;
    my @progs;
    for my $seed (@seeds) {
      open(my $in, "<", $seed) or die; my @lines = grep { /^    \(/ } <$in>;
      my $values = 0; for (@lines) { while (/%(\d+)/g) { $values = $1 + 1 if $1 + 1 > $values } }
      push @progs, [\@lines, $values];
    }
    srand(26); print "{\n"; my ($written, $base) = (0, 0);
    for (my $k = 0; $written < $ops; ++$k) {
      my ($lines, $values) = @{$progs[int(rand(@progs))]};
      my %dim; my $dimOf = sub { my $d = shift; $d == 1 ? 1 : ($dim{$d} //= $d * (1 + int(rand(3)))) };
      my $twoD = grep { /mesh_shape:\[\d+,\d+\]/ } @$lines;
      my @mesh = $twoD ? @{([2, 2], [2, 4], [4, 2])[int(rand(3))]} : (2 * (1 + int(rand(2))));
      my $procs = 1; $procs *= $_ for @mesh;
      my $first = $procs * int(rand(8));
      my $ids = join(",", $first .. $first + $procs - 1); my $shape = join(",", @mesh);
      my $swap = $twoD && rand() < 0.5;
      for my $l (@$lines) {
        last if $written >= $ops;
        (my $c = $l) =~ s/%(\d+)/"%".($1 + $base)/ge;
        $c =~ s/(?<=[<x])(\d+)(?=x)/$dimOf->($1)/ge;
        $c =~ s/(shape:\(pd_op\.IntArray\)\[)([\d,]*)\]/$1 . join(",", map { $dimOf->($_) } split(m{,}, $2)) . "]"/ge;
        $c =~ s/((?:name|parameter_name|output_name):"[^"]*)"/$1_s$k"/g;
        $c =~ s/mesh:\{shape:\[[\d,]*\],process_ids:\[[\d,]*\]/mesh:{shape:[$shape],process_ids:[$ids]/g;
        $c =~ s/mesh_shape:\[[\d,]*\]/mesh_shape:[$shape]/g;
        if ($swap) {
          $c =~ s/(dims_map+ings?:\[)([-\d,]*)\]/$1 . join(",", map { $_ eq "0" ? 1 : $_ eq "1" ? 0 : $_ } split(m{,}, $2)) . "]"/ge;
          $c =~ s/partial\(([01]),/"partial(" . (1 - $1) . ","/ge;
        }
        print $c; ++$written;
      }
      $base += $values;
    }
    print "}\n";' "$1" "$root/samples/seed_mlp_before.ir" "$root/samples/tp_mlp_2x2_before.ir" > "$2"
}

# The same program in MLIR's generic syntax, for mlir-opt: each op keeps its
# name, operands and results; each attribute becomes a string attribute with
# the dump's text; types become builtin tensors; null operands are left out;
# Paddle's builtin.* ops are renamed pd_builtin.* (MLIR's builtin dialect is closed).
generate_mlir() {  # generate_mlir IN.ir OUT.mlir
  perl -ne '
    next unless /^    \((.*?)\) = "([^"]+)" \((.*?)\) (\{.*\}) : \((.*?)\) -> (.*)$/;
    my ($res, $name, $opnds, $attrs, $otypes, $rtypes) = ($1, $2, $3, $4, $5, $6);
    $name =~ s/^builtin\./pd_builtin./;  # MLIR'"'"'s builtin dialect takes no unknown ops
    sub ty { my $t = shift; return "none" if $t =~ /NULL/; $t =~ /<([^,>]*)/; my $s = $1; $s =~ s/^([a-z0-9]+)$/$1/; return "tensor<$s>" }
    sub split_top { my ($s) = @_; my (@out, $cur, $d, $q); $d = 0; $q = 0; $cur = "";
      for my $c (split //, $s) {
        if ($q) { $q = 0 if $c eq "\"" && substr($cur, -1) ne "\\"; $cur .= $c; next }
        if ($c eq "\"") { $q = 1 } elsif ($c =~ /[\[\{\(<]/) { ++$d } elsif ($c =~ /[\]\}\)>]/) { --$d }
        if ($c eq "," && $d == 0) { push @out, $cur; $cur = ""; next } $cur .= $c }
      push @out, $cur if length $cur; return @out }
    my @r = $res eq "" ? () : split /, /, $res;
    my @o = $opnds eq "" ? () : split /, /, $opnds;
    my @ot = split_top($otypes); my @keep = grep { $o[$_] !~ /NULL/ } 0..$#o;
    my @rt = split_top($rtypes);
    my @a = map { my ($k, $v) = /^([^:]+):(.*)$/s; $v =~ s/\\/\\\\/g; $v =~ s/"/\\"/g; "$k = \"$v\"" }
            split_top(substr($attrs, 1, -1));
    my $lhs = @r == 0 ? "" : @r == 1 ? "$r[0] = " : "$r[0]:" . scalar(@r) . " = ";
    for my $i (1..$#r) { $alias{$r[$i]} = "$r[0]#$i" } $alias{$r[0]} = "$r[0]#0" if @r > 1;
    my @uses = map { $alias{$o[$_]} // $o[$_] } @keep;
    printf "  %s\"%s\"(%s) {%s} : (%s) -> (%s)\n", $lhs, $name, join(", ", @uses), join(", ", @a),
      join(", ", map { ty($ot[$_]) } @keep), join(", ", map { ty($_) } @rt);
  ' "$1" > "$2"
}

# The commands: NAME EXPECTED_EXIT ARGS...; IN is the generated program,
# AFTER the program `apply` makes of it, OUT the output.
commands=(
  "cat 0 cat IN >OUT"
  "apply 0 apply IN -o OUT"
  "apply-j1 0 apply -j 1 IN -o OUT"
  "apply-j2 0 apply -j 2 IN -o OUT"
  "apply-stdin 0 apply - -o OUT <IN"
  "apply-pipe 0 apply - -o OUT |IN"
  "apply--check 1 apply --check IN"
  "apply--diff 0 apply --diff IN >OUT"
  "apply--dedupe 0 apply --dedupe --fold IN -o OUT"
  "list 0 list --no-reshards IN -o OUT"  # the log scanner alone (list parses each program by default)
  "list-parse 0 list IN -o OUT"
  "print 0 print AFTER -o OUT"
  "print-j1 0 print -j 1 AFTER -o OUT"
  "print-j2 0 print -j 2 AFTER -o OUT"
  "print-json 0 print --emit=json AFTER -o OUT"
  "print--brief 0 print --brief AFTER -o OUT"
  "verify 0 verify --quiet AFTER"
  "diff 1 diff IN AFTER"
  "diff--stat 1 diff --stat IN AFTER"
  "diff-u 1 diff -u IN AFTER >OUT"
  "plan 0 plan AFTER -o OUT"
  "plan--json 0 plan --json AFTER -o OUT"
  "plan--apply 0 plan --apply IN -o OUT"
  "run 0 run AFTER -o OUT"
  "run--apply 0 run --apply IN -o OUT"
  "validate 0 validate AFTER -o OUT"
  "lower--rank 0 lower --rank 0 --apply IN -o OUT"
  "lower--all-ranks--apply 0 lower --all-ranks --apply IN -o OUT"
  "lower--all-ranks--stdout 0 lower --all-ranks --apply IN >OUT"
  "lower--all-ranks--apply-8-ranks 0 lower --all-ranks --apply IN8 -o OUT"
  "schedule--apply-8-ranks 0 schedule --apply IN8 -o OUT"
  "lower--plan 0 lower --all-ranks --apply --lowering=plan IN -o OUT"
)

# IN8: the program with every process id taken mod 8, so that its stages
# share 8 ranks (a 100k-op program on 8 ranks for schedule, which lowers the
# program for each of its ranks). Made once, when a command needs it.
eight_ranks() {  # eight_ranks IN OUT
  perl -pe 's/process_ids:\[([0-9,]*)\]/"process_ids:[".join(",", map { $_ % 8 } split(m{,}, $1))."]"/ge' "$1" > "$2"
}

# Runs `bash -c LINE` under GNU time (peak RSS: a fork of python would count
# python's own pages), writing "wall user sys maxrss_kB" with microsecond
# times (GNU time rounds them to 10 ms); exits with the command's status.
timer='
import os, subprocess, sys, time
rss = sys.argv[1] + ".rss"
start = time.monotonic()
child = subprocess.Popen(["/usr/bin/time", "-q", "-f", "%M", "-o", rss, "bash", "-c", sys.argv[2]])
_, status, usage = os.wait4(child.pid, 0)
wall = time.monotonic() - start
with open(rss) as f:
    maxrss = int(f.read().split()[-1])
with open(sys.argv[1], "w") as out:
    out.write("%.4f %.4f %.4f %d\n" % (wall, usage.ru_utime, usage.ru_stime, maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
'

results=$work/results.txt
: > "$results"
measure() {  # measure OPS NAME EXPECTED PROGRAM ARGS... ; appends a row to $results
  local ops=$1 name=$2 expected=$3; shift 3
  local stats=$work/time.txt rc=0 out=$out_spec held=0
  [ -d "$out_spec" ] && out=$out_spec/bench_$kind.$ops.$name.out
  # PROGRAM is `cat`, a path (mlir-opt) or else a subcommand of the tool.
  local line
  case $1 in cat|/*) line=$(printf '%q' "$1") ;; *) line="$(printf '%q' "$tool") $1" ;; esac
  shift
  for arg in "$@"; do
    if [ "$arg" = IN8 ] && [ ! -f "$in8" ]; then eight_ranks "$in" "$in8"; fi
    case $arg in IN|"<IN"|"|IN") held=$((held + $(stat -c %s "$in"))) ;; AFTER) held=$((held + $(stat -c %s "$after"))) ;; IN8) held=$((held + $(stat -c %s "$in8"))) ;; esac
    case $arg in
      IN) line+=" $(printf '%q' "$in")" ;;
      AFTER) line+=" $(printf '%q' "$after")" ;;
      IN8) line+=" $(printf '%q' "$in8")" ;;
      OUT) line+=" $(printf '%q' "$out")" ;;
      "<IN") line+=" < $(printf '%q' "$in")" ;;
      "|IN") line="cat $(printf '%q' "$in") | $line" ;;
      ">OUT") line+=" > $(printf '%q' "$out")" ;;
      *) line+=" $(printf '%q' "$arg")" ;;
    esac
  done
  timeout "$timeout_s" python3 -c "$timer" "$stats" "$line" >/dev/null 2>"$work/stderr.txt" || rc=$?
  if [ $rc -ne "$expected" ]; then
    echo "$ops $kind $name - - - - - $rc" >> "$results"
    echo "  $name on $ops ops: exit $rc (expected $expected): $(tail -c 300 "$work/stderr.txt")" >&2
    return
  fi
  read -r wall user sys rss_kb < <(tail -1 "$stats")
  echo "$ops $kind $name $wall $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') $rss_kb $(stat -c %s "$in") $held ok" >> "$results"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; outputs to $out_spec"
read -r -a kinds <<< "${BENCH_KINDS:-varied repeated}"
for ops in "${sizes[@]}"; do
for kind in "${kinds[@]}"; do
  in=$work/bench_$kind.$ops.ir after=$work/bench_$kind.$ops.after.ir in8=$work/bench_$kind.$ops.8ranks.ir
  case $kind in
    varied) [ -f "$in" ] || generate_varied "$ops" "$in" ;;
    repeated) [ -f "$in" ] || generate "$ops" "$in" ;;
    *) echo "unknown kind '$kind' in BENCH_KINDS (varied, repeated)" >&2; exit 2 ;;
  esac
  [ -f "$after" ] || "$tool" apply "$in" -o "$after"
  cat "$in" "$after" > /dev/null  # warm the page cache: the figures are the tool, not the disk
  for entry in "${commands[@]}"; do
    read -r -a fields <<< "$entry"
    [[ ${fields[0]} =~ $only ]] || continue
    measure "$ops" "${fields[@]}"
  done
  if [ "${BENCH_MLIR:-0}" = 1 ] && [[ mlir-opt =~ $only ]]; then
    if [ -z "$mlir_opt" ]; then echo "  mlir-opt not found (apt-get install mlir-14-tools)" >&2
    else
      mlir=$work/bench_$kind.$ops.mlir
      [ -f "$mlir" ] || generate_mlir "$in" "$mlir"
      in_saved=$in; in=$mlir
      measure "$ops" mlir-opt 0 "$(readlink -f "$mlir_opt")" --allow-unregistered-dialect \
        --mlir-print-op-generic IN -o OUT
      in=$in_saved
    fi
  fi
done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

# The table, then the growth of each command from one size to the next.
awk '
  { ops[NR] = $1; kind[NR] = $2; name[NR] = $3; wall[NR] = $4; cpu[NR] = $5; rss[NR] = $6; bytes[NR] = $7; held[NR] = $8; ok[NR] = $9 }
  END {
    printf "%-9s %-9s %-13s %8s %8s %8s %8s %8s %8s\n", "ops", "kind", "command", "input_MB", "wall_s", "cpu_s", "MB/s", "peak_MB", "rss/held"
    for (i = 1; i <= NR; ++i) {
      if (ok[i] != "ok") { printf "%-9s %-9s %-13s FAILED (exit %s)\n", ops[i], kind[i], name[i], ok[i]; continue }
      mb = bytes[i] / 1e6
      printf "%-9s %-9s %-13s %8.1f %8.3f %8.3f %8.0f %8.1f %8s\n", ops[i], kind[i], name[i], mb, wall[i], cpu[i],
             (wall[i] > 0 ? mb / wall[i] : 0), rss[i] / 1024, (held[i] > 0 ? sprintf("%.2f", rss[i] * 1024 / held[i]) : "-")
    }
    printf "\ngrowth from one size to the next (x = ratio of the larger to the smaller)\n"
    printf "%-9s %-13s %-20s %8s %8s %8s\n", "kind", "command", "sizes", "wall", "cpu", "peak_MB"
    for (i = 1; i <= NR; ++i) for (j = i + 1; j <= NR; ++j) {
      if (name[i] != name[j] || kind[i] != kind[j] || ok[i] != "ok" || ok[j] != "ok") continue
      printf "%-9s %-13s %-20s %7.1fx %7.1fx %7.1fx\n", kind[i], name[i], ops[i] "->" ops[j], (wall[i] > 0 ? wall[j] / wall[i] : 0),
             (cpu[i] > 0 ? cpu[j] / cpu[i] : 0), rss[j] / rss[i]
      break
    }
  }' "$results"
echo "(inputs in $work)"
