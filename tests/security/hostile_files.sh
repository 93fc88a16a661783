#!/usr/bin/env bash
# Output paths opened as the shell's `>` would, and -r reading only the tree
# (SECURITY.md), one case per ctest (tests/security/tests.cmake), run from the
# repository root:
#   hostile_files.sh TOOL CASE
# Cases that need another user run as nobody when root (setpriv), else as
# ourselves; a case that cannot be set up here says SKIP (ctest skips it).
set -u
tool=$(realpath "$1") case=$2
work=$(mktemp -d) && trap 'chmod -R u+rwx "$work"; rm -rf "$work"' EXIT
chmod 755 "$work"
source "$(dirname "$0")/../golden_lib.sh"
seed=$(realpath samples/seed_mlp_before.ir)
skip() { echo "SKIP: $*"; exit 77; }
# as_other CMD...: the command as a user without root's powers.
as_other() {
  if [ "$(id -u)" -ne 0 ]; then "$@"; return; fi
  command -v setpriv >/dev/null || skip "root without setpriv"
  setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}
other_uid() { [ "$(id -u)" -ne 0 ] && id -u || id -u nobody; }

# nested_loops N: three nested while loops of N iterations each around one
# replicated 4x8 scale (N^3 body runs).
nested_loops() {
  local n=$1 d='op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]}'
  local t='pd_dist.tensor<4x8xf32, mesh_shape:[2],dims_mappings:[-1,-1]>' i='pd_dist.tensor<1xi64, mesh_shape:[2],dims_mappings:[-1]>'
  local b='pd_dist.tensor<1xb, mesh_shape:[2],dims_mappings:[-1]>'
  full() { echo "$1($2) = \"pd_op.full\" () {dtype:(pd_op.DataType)int64,$d,result(0):{dims_maping:[-1]}},place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[1],stop_gradient:[true],value:(Float)$3} : () -> $i"; }
  less() { echo "$1($2) = \"pd_op.less_than\" ($3, %2) {$d,operand(0):{dims_maping:[-1]},operand(1):{dims_maping:[-1]},result(0):{dims_maping:[-1]}},stop_gradient:[true]} : ($i, $i) -> $b"; }
  incr() { echo "$1($2) = \"pd_op.increment\" ($3) {$d,operand(0):{dims_maping:[-1]},result(0):{dims_maping:[-1]}},stop_gradient:[true],value:(Float)1} : ($i) -> $i"; }
  yield() { echo "$1() = \"cf.yield\" ($2, $3, $4) {} : ($b, $i, $t) -> "; }
  loop() { echo "$1($2, $3) = \"pd_op.while\" (cond=$4, inputs=$5, $6) { "; }
  echo '{'
  echo "    (%0) = \"pd_op.data\" () {dtype:(pd_op.DataType)float32,name:\"x\",$d,result(0):{dims_maping:[-1,-1]}},place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)[4,8],stop_gradient:[true]} : () -> $t"
  full '    ' %1 0; full '    ' %2 "$n"; less '    ' %3 %1
  loop '    ' %4 %5 %3 %1 %0
  echo '    ^%arg_0, %arg_1'
  full '        ' %6 0; less '        ' %7 %6
  loop '        ' %8 %9 %7 %6 %arg_1
  echo '        ^%arg_2, %arg_3'
  full '            ' %10 0; less '            ' %11 %10
  loop '            ' %12 %13 %11 %10 %arg_3
  echo '            ^%arg_4, %arg_5'
  echo "                (%14) = \"pd_op.scale\" (%arg_5) {bias:(Float)1,bias_after_scale:true,$d,operand(0):{dims_maping:[-1,-1]},result(0):{dims_maping:[-1,-1]}},scale:(Float)0.5,stop_gradient:[false]} : ($t) -> $t"
  incr '                ' %15 %arg_4; less '                ' %16 %15; yield '                ' %16 %15 %14
  echo '            }'
  incr '            ' %17 %arg_2; less '            ' %18 %17; yield '            ' %18 %17 %13
  echo '        }'
  incr '        ' %19 %arg_0; less '        ' %20 %19; yield '        ' %20 %19 %9
  echo '    }'
  echo "    (%21) = \"pd_op.relu\" (%5) {$d,operand(0):{dims_maping:[-1,-1]},result(0):{dims_maping:[-1,-1]}},stop_gradient:[false]} : ($t) -> $t"
  echo "    () = \"builtin.shadow_output\" (%21) {$d,operand(0):{dims_maping:[-1,-1]}},output_name:\"out\"} : ($t) -> "
  echo '}'
}

case $case in
  output-planted-link-root)  # a link planted by another user in a sticky folder is not followed (as root too)
    [ "$(id -u)" -eq 0 ] || skip "needs root to plant a link as another user"
    mkdir -m 1777 "$work/sticky"; echo "root's file" >"$work/victim"
    ln -s "$work/victim" "$work/sticky/out.ir"; chown -h nobody "$work/sticky/out.ir"
    "$tool" print "$seed" -o "$work/sticky/out.ir" 2>"$work/err"
    [ $? -eq 2 ] || fail "writing through the planted link did not exit 2"
    [ "$(cat "$work/victim")" = "root's file" ] || fail "the link's target was replaced"
    grep -q "cannot write .*Permission denied" "$work/err" || fail "no reason given: $(cat "$work/err")"
    ;;
  output-planted-link-user)  # the same as an ordinary user, against a link owned by root; our own link is followed
    mkdir -m 1777 "$work/sticky"; mkdir -m 777 "$work/open"  # the target's folder: a rename there would succeed
    echo "root's file" >"$work/open/victim"; chmod 666 "$work/open/victim"
    ln -s "$work/open/victim" "$work/sticky/planted.ir"
    # The link's owner (root) is neither the writer nor the folder's owner (a third user).
    [ "$(id -u)" -eq 0 ] || skip "cannot plant a link as another user without root"
    chown 12345 "$work/sticky"
    as_other "$tool" print "$seed" -o "$work/sticky/planted.ir" 2>/dev/null
    [ $? -eq 2 ] || fail "writing through another user's link did not exit 2"
    [ "$(cat "$work/open/victim")" = "root's file" ] || fail "the link's target was replaced"
    "$tool" print "$seed" -o "$work/open/own.ir" && ln -s "$work/open/own.ir" "$work/sticky/mine.ir"
    [ "$(id -u)" -ne 0 ] || { chown nobody "$work/open/own.ir"; chown -h nobody "$work/sticky/mine.ir"; }
    as_other "$tool" print "$seed" -o "$work/sticky/mine.ir" || fail "writing through our own link exited $?"
    ;;
  output-read-only-refused)  # a 0444 file we own is refused, as `>` refuses it, whatever its group
    "$tool" print "$seed" -o "$work/ro.ir" && echo "kept" >"$work/ro.ir" && chmod 444 "$work/ro.ir"
    chown "$(other_uid)" "$work/ro.ir"
    as_other "$tool" print "$seed" -o "$work/ro.ir" 2>"$work/err"
    [ $? -eq 2 ] || fail "-o onto a read-only file did not exit 2"
    [ "$(cat "$work/ro.ir")" = kept ] || fail "the read-only file was replaced"
    grep -q "cannot write .*Permission denied" "$work/err" || fail "no reason given: $(cat "$work/err")"
    cp "$seed" "$work/in.ir" && chmod 444 "$work/in.ir" && chown "$(other_uid)" "$work/in.ir"
    as_other "$tool" apply --in-place "$work/in.ir" 2>/dev/null
    [ $? -eq 2 ] || fail "-i on a read-only file did not exit 2"
    cmp -s "$seed" "$work/in.ir" || fail "-i replaced a read-only file"
    ;;
  output-read-only-folder)  # a writable file in a folder we may not create in is written in place, as `>` does
    mkdir "$work/ro" && echo old >"$work/ro/out.ir" && chmod 666 "$work/ro/out.ir"
    if [ "$(id -u)" -eq 0 ]; then chown nobody "$work/ro/out.ir"; chown nobody "$work/ro"; fi
    chmod 555 "$work/ro"
    as_other "$tool" print "$seed" -o "$work/ro/out.ir" || fail "-o into a read-only folder exited $?"
    "$tool" print "$seed" -o "$work/expected.ir"
    same "$work/expected.ir" "$work/ro/out.ir" "the file written in place"
    [ "$(ls -A "$work/ro")" = out.ir ] || fail "something else was left in the folder"
    ;;
  walk-links-stay-inside)  # -r reads no link leaving the tree, no FIFO or /proc file; a link inside is read
    mkdir -p "$work/tree/sub" "$work/outside"
    cp "$seed" "$work/tree/a.ir"
    printf 'TOKEN=hunter2\n' >"$work/outside/creds.ir"
    ln -s ../../outside/creds.ir "$work/tree/sub/leak.ir"
    ln -s /proc/self/environ "$work/tree/env.ir"
    ln -s /proc/kmsg "$work/tree/kmsg.ir"
    ln -s a.ir "$work/tree/inside.ir"
    mkfifo "$work/tree/fifo.ir"
    ln -s "$work/outside" "$work/tree/dirlink"
    SECRET_FOR_TEST=hunter2 timeout 20 "$tool" verify -r "$work/tree" >"$work/out" 2>&1
    status=$?
    [ $status -ne 124 ] || fail "-r hung on a special file"
    [ $status -eq 0 ] || { cat "$work/out"; fail "-r exited $status"; }
    ! grep -q hunter2 "$work/out" || fail "a file outside the tree reached the output"
    grep -q "inside.ir: ok" "$work/out" || fail "the link inside the tree was not read"
    grep -q "verified 2 files" "$work/out" || { cat "$work/out"; fail "not exactly a.ir and inside.ir read"; }
    "$tool" verify "$work/tree/sub/leak.ir" >/dev/null 2>&1
    [ $? -eq 1 ] || fail "a link named on the command line is not read"
    ;;
  walk-unreadable-folder)  # an unreadable folder under -r is reported and the run exits 2
    mkdir -p "$work/tree/locked" && cp "$seed" "$work/tree/a.ir" && chmod 000 "$work/tree/locked"
    as_other "$tool" verify -r "$work/tree" >"$work/out" 2>&1
    status=$?
    [ $status -eq 2 ] || { cat "$work/out"; fail "an unreadable folder exited $status, not 2"; }
    grep -q "cannot read directory '.*locked': Permission denied" "$work/out" || { cat "$work/out"; fail "not reported"; }
    grep -q "a.ir: ok" "$work/out" || fail "the readable file was not read"
    ;;
  walk-deep-tree)  # 8,000 levels: fast, in memory linear in the depth (under a 200 MB limit), no crash
    python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
for _ in range(8000):
    os.mkdir("a", dir_fd=fd); below = os.open("a", os.O_RDONLY, dir_fd=fd); os.close(fd); fd = below
' "$work" || skip "cannot build a deep tree here"
    cp "$seed" "$work/top.ir"
    # An address-space limit cannot coexist with a sanitizer's shadow memory:
    # a sanitized build (SANITIZED=1, tests.cmake) runs without it.
    (if [ -z "${SANITIZED:-}" ]; then ulimit -v 400000; fi
     timeout 20 "$tool" verify -r "$work" >"$work/out" 2>"$work/err"; echo $? >"$work/status")
    status=$(cat "$work/status")
    [ "$status" -lt 124 ] || fail "-r on a deep tree ran out of time or memory (status $status)"
    [ "$status" -eq 0 ] || [ "$status" -eq 2 ] || fail "-r on a deep tree exited $status"
    grep -q "top.ir: ok" "$work/err" || { head -c 400 "$work/err"; fail "the file at the top was not read"; }
    ! grep -q "terminate called" "$work/err" || fail "-r aborted"
    ;;
  log-many-programs-listed)  # a log of 400,000 empty programs: apply without --program lists them all, fast (linear)
    python3 -c 'import sys; sys.stdout.write("IR = {\n}\n" * 400000)' >"$work/many.log"
    timeout 60 "$tool" apply "$work/many.log" 2>"$work/err"; status=$?
    [ "$status" -eq 2 ] || fail "apply of a log of many programs exited $status (124: out of time)"
    grep -q "holds 400000 programs; choose one" "$work/err" || { head -c 400 "$work/err"; fail "no usage error"; }
    [ "$(grep -c '^  [ 0-9]* [0-9]*-[0-9]* ' "$work/err")" -eq 400000 ] || fail "not every program listed"
    ;;
  many-warnings-one-line)  # 100,000 results on one 7 MB line, a warning each: every snippet reads only its part of the line
    python3 -c '
import sys
t = "pd_dist.tensor<4x8xf32, mesh_shape:[2],dims_mappings:[-1,-1]>"
n = 100000
sys.stdout.write("{\n    (" + ", ".join("%%%d" % i for i in range(n)) + ") = \"pd_op.split\" () {} : () -> " + ", ".join([t] * n) + "\n}\n")
' >"$work/wide.ir"
    for format in text sarif; do
      timeout 60 "$tool" verify --error-format=$format "$work/wide.ir" 2>"$work/err"; status=$?
      [ "$status" -eq 0 ] || fail "verify --error-format=$format of 100,000 warnings on a line exited $status (124: out of time)"
    done
    timeout 60 "$tool" verify "$work/wide.ir" 2>"$work/err"
    [ "$(grep -c 'warning: result [0-9]* lives on a mesh known only by its shape' "$work/err")" -eq 100000 ] || fail "not every warning"
    [ "$(grep -c '^    (%0, %1, .*\.\.\.$' "$work/err")" -eq 100000 ] || { head -3 "$work/err"; fail "the snippets are not clipped"; }
    ;;
  schedule-many-programs)  # a log of 100,000 programs is 100,000 ranks, each program taken by its number (linear)
    python3 -c 'import sys; sys.stdout.write("IR = {\n}\n" * 100000)' >"$work/ranks.log"
    timeout 60 "$tool" schedule "$work/ranks.log" >"$work/out" 2>"$work/err"; status=$?
    [ "$status" -eq 0 ] || { head -c 400 "$work/err"; fail "schedule of 100,000 programs exited $status (124: out of time)"; }
    grep -q "^schedule: 100000 ranks, 0 calls" "$work/err" || { tail -2 "$work/err"; fail "not 100,000 ranks"; }
    ;;
  list-many-programs-memory)  # list of a log of 400,000 empty programs as text: under 700 MB (no JSON document built)
    python3 -c 'import sys; sys.stdout.write("IR = {\n}\n" * 400000)' >"$work/many.log"
    # An address-space limit cannot coexist with a sanitizer's shadow memory (tests.cmake: SANITIZED=1).
    (if [ -z "${SANITIZED:-}" ]; then ulimit -v 700000; fi
     timeout 120 "$tool" list "$work/many.log" >"$work/out" 2>"$work/err"; echo $? >"$work/status")
    [ "$(cat "$work/status")" -eq 0 ] || { head -c 300 "$work/err"; fail "list of 400,000 programs exited $(cat "$work/status")"; }
    [ "$(grep -c '^ *[0-9]*  [0-9]*-[0-9]* *0  no ' "$work/out")" -eq 400000 ] || { head -3 "$work/out"; fail "not every program listed"; }
    ;;
  walk-one-file-status)  # -r over a folder holding one file prints its status line
    mkdir "$work/one" && cp "$seed" "$work/one/only.ir"
    "$tool" verify -r "$work/one" 2>"$work/err" || fail "verify -r exited $?"
    grep -q "only.ir: ok" "$work/err" || { cat "$work/err"; fail "no status line for the one file"; }
    ;;
  validate-budget)  # a loop of 9,999 512x512 matmuls and one huge matmul are refused fast, with the figure
    loop=tests/golden/validate/while_loop.ir
    # The loop's body becomes one replicated 512x512 matmul, run 9,999 times.
    sed -e 's/\[0,-1\]/[-1,-1]/g; s/4x8xf32/512x512xf32/g; s/\[4,8\]/[512,512]/; s/value:(Float)3}/value:(Float)9999}/' \
        -e 's/"pd_op.scale" (%arg_1) {bias:(Float)1,bias_after_scale:true,/"pd_op.matmul" (%arg_1, %arg_1) {transpose_x:false,transpose_y:false,/' \
        -e 's/operand(0):{dims_maping:\[-1,-1\]},result(0):{dims_maping:\[-1,-1\]}},scale:(Float)0.5,stop_gradient:\[false\]} : (pd_dist.tensor<512x512xf32, mesh_shape:\[2\],dims_mappings:\[-1,-1\]>) ->/operand(0):{dims_maping:[-1,-1]},operand(1):{dims_maping:[-1,-1]},result(0):{dims_maping:[-1,-1]}},stop_gradient:[false]} : (pd_dist.tensor<512x512xf32, mesh_shape:[2],dims_mappings:[-1,-1]>, pd_dist.tensor<512x512xf32, mesh_shape:[2],dims_mappings:[-1,-1]>) ->/' \
        "$loop" >"$work/matmul_loop.ir"
    grep -q '"pd_op.matmul" (%arg_1, %arg_1)' "$work/matmul_loop.ir" || fail "the test program was not made"
    # It states its 9,999 trips, so it is refused before anything runs: 9,999 x 2 x 512^3 units.
    # --shrink=off: the budget itself (auto would validate a smaller copy, as checked below)
    timeout 10 "$tool" validate --shrink=off "$work/matmul_loop.ir" 2>"$work/err"
    [ $? -eq 2 ] || { cat "$work/err"; fail "the matmul loop was not refused (exit 2)"; }
    grep -q "need 2.68e+12 units of work, more than --max-work=2000000000" "$work/err" ||
      { cat "$work/err"; fail "not refused up front with the figure"; }
    timeout 60 "$tool" validate "$work/matmul_loop.ir" >"$work/out" 2>&1 ||
      { cat "$work/out"; fail "--shrink=auto did not validate a smaller copy of the matmul loop"; }
    grep -q "^validated at 1/[0-9]* scale: 512→" "$work/out" || { cat "$work/out"; fail "no shrink line"; }
    sed 's/512/11585/g; s/value:(Float)9999}/value:(Float)1}/' "$work/matmul_loop.ir" >"$work/huge.ir"
    timeout 10 "$tool" validate --max-work 0 "$work/huge.ir" 2>"$work/err"
    [ $? -eq 2 ] || { cat "$work/err"; fail "an 11585x11585 matmul was not refused up front"; }
    grep -q "more than --max-memory=" "$work/err" || { cat "$work/err"; fail "no memory figure given"; }
    "$tool" validate "$loop" >/dev/null || fail "an ordinary loop is refused"
    ;;
  validate-nested-loops)  # three nested 9,999-trip loops (10^12 runs of the body) are refused up front
    nested_loops 9999 >"$work/nested.ir"
    start=$(date +%s%N)
    timeout 10 "$tool" validate --shrink=off "$work/nested.ir" 2>"$work/err"
    [ $? -eq 2 ] || { cat "$work/err"; fail "the nested loops were not refused (exit 2)"; }
    ms=$((($(date +%s%N) - start) / 1000000))
    [ "$ms" -lt 5000 ] || fail "the refusal took $ms ms: not up front"
    grep -q "need 8.07e+15 units of work, more than --max-work=2000000000" "$work/err" ||
      { cat "$work/err"; fail "no figure of the nested loops' work"; }
    ! grep -q "again: loops repeat it" "$work/err" || fail "refused while running, not up front"
    # Three trips each run (27 runs of the body) and match: the counted form is read, not refused.
    nested_loops 3 >"$work/small.ir"
    "$tool" validate "$work/small.ir" >"$work/err" 2>&1 || { cat "$work/err"; fail "the small nested loops fail"; }
    grep -q "match the serial program" "$work/err" || { cat "$work/err"; fail "no validation line"; }
    ;;
  validate-many-ranks-memory)  # 4,096 ranks of a replicated 1024x1024 value: refused for memory, never a divergence
    ids=$(seq -s, 0 4095)
    d="op_dist_attr:{mesh:{shape:[4096],process_ids:[$ids]}"
    t='pd_dist.tensor<1024x1024xf32, mesh_shape:[4096],dims_mappings:[-1,-1]>'
    { echo '{'
      echo "    (%0) = \"pd_op.full\" () {dtype:(pd_op.DataType)float32,$d,result(0):{dims_maping:[-1,-1]}},place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[1024,1024],stop_gradient:[true],value:(Float)1} : () -> $t"
      echo "    (%1) = \"pd_op.relu\" (%0) {$d,operand(0):{dims_maping:[-1,-1]},result(0):{dims_maping:[-1,-1]}},stop_gradient:[false]} : ($t) -> $t"
      echo '}'; } >"$work/ranks.ir"
    if [ -n "${SANITIZED:-}" ]; then timeout 20 "$tool" validate --shrink=off "$work/ranks.ir" >"$work/out" 2>"$work/err"
    else (ulimit -v 2000000; exec timeout 20 "$tool" validate --shrink=off "$work/ranks.ir") >"$work/out" 2>"$work/err"; fi
    status=$?
    [ $status -eq 2 ] || { cat "$work/out" "$work/err"; fail "4,096 ranks exited $status, expected 2"; }
    grep -q "more than --max-memory=" "$work/err" || { cat "$work/err"; fail "not refused up front for memory"; }
    ! grep -Eq "diverge|not simulated" "$work/out" "$work/err" || fail "memory reported as the program's fault"
    ;;
  sarif-code-point-columns)  # SARIF says unicodeCodePoints and counts them; the text format counts bytes
    sed '2s/name:"learning_rate_1",/name:"\xc3\xa9\xe2\x86\x92",/; 2s/stop_gradient:\[true\]/stop_gradient:[true}/' "$seed" >"$work/wide.ir"
    grep -q 'name:"é→"' "$work/wide.ir" || fail "the test program was not made"
    "$tool" verify "$work/wide.ir" 2>"$work/text"
    col=$(sed -n 's/^.*wide.ir:2:\([0-9]*\): error.*$/\1/p' "$work/text" | head -1)
    [ -n "$col" ] || { cat "$work/text"; fail "no error on line 2"; }
    "$tool" verify --error-format=sarif "$work/wide.ir" 2>"$work/sarif"
    python3 - "$work/sarif" "$col" <<'PY' || fail "SARIF columns are not code points"
import json, sys
log = json.load(open(sys.argv[1]))
run = log["runs"][0]
assert run["columnKind"] == "unicodeCodePoints", run.get("columnKind")
region = run["results"][0]["locations"][0]["physicalLocation"]["region"]
# "é" is 2 bytes and "→" 3 before the error: 3 bytes more than code points.
assert region["startColumn"] == int(sys.argv[2]) - 3, (region, sys.argv[2])
PY
    ;;
  dangling-comma-message)  # a dangling comma asks for the missing item, not for the ',' it found
    printf '{\n    (%%0) = "a.b" (%%1,) {} : () -> f32\n}\n' >"$work/comma.ir"
    "$tool" verify "$work/comma.ir" 2>"$work/err"
    [ $? -eq 1 ] || fail "the dangling comma did not exit 1"
    grep -q "comma.ir:2:21: error: expected an item after ',' in the operand list, found ')'" "$work/err" ||
      { cat "$work/err"; fail "the message does not ask for the item after the comma"; }
    ! grep -q "expected ',' or ')'" "$work/err" || fail "the message asks for the ',' it found"
    ;;
  diff-log-hunks-numbered)  # diff -u --program 1 --program 2 LOG numbers hunks by the log's lines
    { echo "I1201 a log line"; echo "IR before = "; cat "$seed"; echo "I1201 between"; echo "IR after = ";
      cat samples/seed_mlp_after.ir; } >"$work/run.log"
    (cd "$work" && "$tool" diff -u --program 1 --program 2 run.log >p.diff)
    [ $? -eq 1 ] || fail "diff -u of two different programs did not exit 1"
    grep -qx '@@ -10,21 +40,23 @@' "$work/p.diff" || { grep '^@@' "$work/p.diff"; fail "the hunk is not numbered by the log's lines"; }
    head -31 "$work/run.log" >"$work/first.log"  # the log up to the first program's end
    (cd "$work" && sed 's|run.log|first.log|' p.diff | patch -p0 --verbose >patch.out 2>&1) ||
      { cat "$work/patch.out"; fail "patch rejects the diff"; }
    grep -q "succeeded at 10" "$work/patch.out" || { cat "$work/patch.out"; fail "patch did not apply at line 10"; }
    ! grep -q "offset" "$work/patch.out" || { cat "$work/patch.out"; fail "patch needed an offset"; }
    ;;
  diff-pairs-at-every-size)  # 2,000 and 100,000 ops whose attributes all changed: "N changed", never removed + added
    for n in 2000 100000; do
      for tag in 1 2; do
        { echo '{'; echo '    (%0) = "pd_op.data" () {name:"x",stop_gradient:[true]} : () -> builtin.tensor<4xf32>'
          awk -v n=$n -v t=$tag 'BEGIN { for (i = 1; i < n; i++) printf "    (%%%d) = \"pd_op.relu\" (%%%d) {k:%d,stop_gradient:[false]} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n", i, i - 1, t }'
          echo '}'; } >"$work/$tag.ir"
      done
      "$tool" diff "$work/1.ir" "$work/2.ir" >"$work/out"
      head -1 "$work/out" | grep -qx "0 ops added, 0 removed, $((n - 1)) changed ($n ops -> $n ops)" ||
        { head -1 "$work/out"; fail "$n ops are not paired as changed"; }
    done
    ;;
  diff-dense-changes)  # every op changed, ops inserted and removed, names varied: paired alike at 1k, 10k, 100k
    for n in 1000 10000 100000; do
      # Before: a chain of n ops cycling through four names, each with k:1. After: every op with
      # k:2, a pd_op.scale inserted after every 97th op, every 89th op left out (the chain joined
      # over it), so the two sides share no op line and the alignment has to pair by name.
      python3 - "$n" "$work" <<'PY'
import sys
n, work = int(sys.argv[1]), sys.argv[2]
names = ["pd_op.relu", "pd_op.tanh", "pd_op.sigmoid", "pd_op.exp"]
t = "builtin.tensor<4xf32>"
for side in (1, 2):
    lines, last, next_id = ['{', f'    (%0) = "pd_op.data" () {{name:"x",stop_gradient:[true]}} : () -> {t}'], 0, 1
    for i in range(1, n):
        if side == 2 and i % 89 == 0:
            continue
        lines.append(f'    (%{next_id}) = "{names[i % 4]}" (%{last}) {{k:{side},stop_gradient:[false]}} : ({t}) -> {t}')
        last, next_id = next_id, next_id + 1
        if side == 2 and i % 97 == 0:
            lines.append(f'    (%{next_id}) = "pd_op.scale" (%{last}) {{scale:(Float)2}} : ({t}) -> {t}')
            last, next_id = next_id, next_id + 1
    open(f"{work}/{side}.ir", "w").write("\n".join(lines + ["}"]) + "\n")
PY
      added=$(((n - 1) / 97 - (n - 1) / (97 * 89))) removed=$(((n - 1) / 89))
      expected="$added ops added, $removed removed, $((n - 1 - removed)) changed ($n ops -> $((n + added - removed)) ops)"
      for mode in -u ""; do  # the listing last: it is checked below
        "$tool" diff $mode "$work/1.ir" "$work/2.ir" >"$work/out"
        [ $? -eq 1 ] || fail "diff $mode of $n ops did not exit 1"
        head -1 "$work/out" | grep -qxF "$expected" ||
          { head -1 "$work/out"; fail "diff $mode of $n ops: expected '$expected'"; }
      done
      # The listing pairs each changed op with its own: old and new side by side under "changed".
      [ "$(grep -c '^changed pd_op\.[a-z]*: attribute k' "$work/out")" -eq $((n - 1 - removed)) ] ||
        fail "the listing of $n ops does not show each change once, as its attribute k"
    done
    ;;
  usage-error-formats)  # a usage error is written as --error-format says: one JSON record, a SARIF log
    "$tool" verify --bogus --error-format=json "$seed" 2>"$work/err"
    [ $? -eq 2 ] || fail "a usage error did not exit 2"
    python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read()); assert r["code"]=="tool-error" and "--bogus" in r["message"]' \
      "$work/err" || { cat "$work/err"; fail "not one JSON record"; }
    "$tool" verify --error-format sarif --bogus "$seed" 2>"$work/err"
    [ $? -eq 2 ] || fail "a usage error did not exit 2"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "--bogus" in str(d["runs"][0]["invocations"])' \
      "$work/err" || { cat "$work/err"; fail "not a SARIF log naming the flag"; }
    ;;
  *) fail "unknown case $case" ;;
esac
echo PASS
