#!/usr/bin/env bash
# Hostile file names and labels reach each destination escaped for it
# (support/escape.h), one case per ctest (tests/security/tests.cmake), run
# from the repository root:
#   hostile_names.sh TOOL CASE
set -u
tool=$1 case=$2
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/../golden_lib.sh"
seed=samples/seed_mlp_before.ir after=samples/seed_mlp_after.ir
lines_starting() { grep -ac -- "^$2" "$1"; }  # lines_starting FILE PREFIX: how many
has_byte() { LC_ALL=C grep -q "$2" "$1"; }     # has_byte FILE BYTE

case $case in
  diff-header-quoted)  # apply --diff: a name with a newline and ESC is quoted, one header pair, patch applies it
    name=$'x\n+++ Makefile\e[31m.ir'
    cp "$seed" "$work/$name"
    (cd "$work" && "$tool" apply --diff "$name" >d.patch) || fail "apply --diff exited $?"
    [ "$(lines_starting "$work/d.patch" '--- ')" -eq 1 ] || fail "not one --- line"
    [ "$(lines_starting "$work/d.patch" '+++ ')" -eq 1 ] || fail "not one +++ line"
    grep -qxF -- '--- "x\n+++ Makefile\033[31m.ir"' "$work/d.patch" || fail "the --- name is not quoted as git quotes it"
    "$tool" apply "$seed" -o "$work/expected.ir" || fail "apply exited $?"
    (cd "$work" && patch -s -p0 <d.patch) || fail "patch rejects the quoted diff"
    same "$work/expected.ir" "$work/$name" "the patched file"
    [ ! -e "$work/Makefile" ] || fail "the diff created ./Makefile"
    ;;
  github-status-escaped)  # verify --error-format=github: no file name becomes a workflow command
    cp "$seed" "$work/"$'n\n::error file=x::pwned.ir'
    cp "$seed" "$work/::add-mask::secret.ir"
    "$tool" verify --error-format=github "$work"/* "$after" >"$work/out" 2>"$work/err" || fail "verify exited $?"
    [ "$(grep -ac '^ *::' "$work/err")" -eq 0 ] || { cat "$work/err"; fail "a status line reads as a command"; }
    grep -qF -- 'n\x0a::error file=x::pwned.ir: ok' "$work/err" || { cat "$work/err"; fail "the newline is not escaped"; }
    ;;
  dot-comment-safe)  # print --emit=dot of two inputs: a name cannot end its // comment
    cp "$seed" "$work/"$'b\n}\ndigraph evil { a [URL="javascript:x"] }\n.ir'
    "$tool" print --emit=dot "$work"/* "$after" >"$work/out" 2>"$work/err" || fail "print exited $?"
    [ "$(lines_starting "$work/out" 'digraph')" -eq 2 ] || fail "not two digraphs"
    [ "$(lines_starting "$work/out" '// ')" -eq 2 ] || fail "not two comments"
    ! grep -aq '^digraph evil' "$work/out" || fail "the name injected a digraph"
    ;;
  terminal-escaped)  # diagnostics, status lines and list's labels show ESC, BEL, CR and bidi escaped
    name=$'bad\e]0;pwn\a\xe2\x80\xae.ir'
    printf '{\n    (%%0) = "pd_op.data" () {name:"\e[2J\xe2\x80\xae"} : () -> builtin.tensor<4xf32\n' >"$work/$name"
    "$tool" verify "$work/$name" "$after" >"$work/out" 2>"$work/err"
    [ $? -eq 1 ] || fail "verify of a bad input did not exit 1"
    grep -qF 'bad\x1b]0;pwn\x07\u202e.ir:2:' "$work/err" || { cat -A "$work/err"; fail "the name is not escaped"; }
    printf 'IR \e[31mred\r::error::x = {\n}\n' >"$work/label.ir"
    "$tool" list "$work/label.ir" "$work/$name" >>"$work/out" 2>>"$work/err"
    grep -qF 'IR \x1b[31mred\x0d::error::x' "$work/out" || { cat -A "$work/out"; fail "the label is not escaped"; }
    for byte in $'\e' $'\a' $'\r' $'\xe2\x80\xae'; do
      ! has_byte "$work/out" "$byte" || fail "stdout holds a raw control or bidi character"
      ! has_byte "$work/err" "$byte" || fail "stderr holds a raw control or bidi character"
    done
    ;;
  html-bidi-shown)  # print --emit=html: an op name's bidi controls are shown, not obeyed
    printf '{\n    (%%0) = "pd_op.\xe2\x80\xaellac_metsys\xe2\x80\xac" () {} : () -> builtin.tensor<4xf32>\n}\n' >"$work/bidi.ir"
    "$tool" print --emit=html "$work/bidi.ir" >"$work/page.html" 2>"$work/err" || { cat "$work/err"; fail "print exited $?"; }
    ! has_byte "$work/page.html" $'\xe2\x80\xae' || fail "the page holds a raw U+202E"
    grep -qF 'pd_op.\u202ellac_metsys\u202c' "$work/page.html" || fail "the op name is not shown escaped"
    ;;
  plan-json-non-utf8)  # plan --json of a file whose name is not UTF-8: valid JSON, the byte as U+FFFD
    cp "$seed" "$work/"$'bad\xff.ir'
    "$tool" plan --apply --json "$work/"$'bad\xff.ir' >"$work/out.json" 2>"$work/err" || { cat "$work/err"; fail "plan exited $?"; }
    python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$work/out.json" || fail "not valid JSON"
    grep -qF $'bad\xef\xbf\xbd.ir' "$work/out.json" || fail "the name's byte is not U+FFFD"
    ;;
  message-name-one-line)  # a file name with a newline quoted in a diagnostic stays on its line (list -r, cannot read)
    mkdir "$work/tree" && : >"$work/tree/"$'e\nfake.ir: ok\n.ir'
    "$tool" list -r "$work/tree" >"$work/out" 2>"$work/err"
    [ $? -eq 1 ] || fail "list of a file without a program did not exit 1"
    grep -qF "no program found in '$work/tree/e\x0afake.ir: ok\x0a.ir'" "$work/err" || { cat -A "$work/err"; fail "the name is not one escaped line"; }
    "$tool" verify "$work/"$'none\nfake.ir: ok' 2>>"$work/err"
    [ $? -eq 2 ] || fail "verify of a missing file did not exit 2"
    ! grep -aq '^fake.ir: ok' "$work/err" || { cat -A "$work/err"; fail "a name's newline started a line of its own"; }
    "$tool" apply tests/golden/logs/train.log 2>"$work/err"  # the one message with lines under it: the table stays
    [ "$(lines_starting "$work/err" '  [0-9]  ')" -eq 3 ] || { cat "$work/err"; fail "the table of the log's programs is not listed"; }
    ;;
  usage-error-escaped)  # a refused argument (a file name a CI job passed on) is quoted escaped, on one line
    "$tool" verify $'--x\e[31m\nreshardctl: ok' "$seed" $'y\e]0;t\a\nfake: ok' 2>"$work/err"
    [ $? -eq 2 ] || fail "the usage error did not exit 2"
    grep -qF "unknown flag '--x\x1b[31m\x0areshardctl: ok'" "$work/err" || { cat -A "$work/err"; fail "the flag is not escaped"; }
    "$tool" $'\e[2Jnope' 2>>"$work/err"
    [ $? -eq 2 ] || fail "an unknown subcommand did not exit 2"
    grep -qF "unknown subcommand '\x1b[2Jnope'" "$work/err" || { cat -A "$work/err"; fail "the subcommand is not escaped"; }
    "$tool" run "$seed" $'a\nfake: ok' 2>>"$work/err"
    [ $? -eq 2 ] || fail "run of two inputs did not exit 2"
    ! has_byte "$work/err" $'\e' || fail "stderr holds a raw ESC"
    ! grep -aq '^fake: ok\|^reshardctl: ok' "$work/err" || { cat -A "$work/err"; fail "an argument started a line"; }
    ;;
  github-property-escaped)  # --error-format=github: a file name's ESC and bidi controls are escaped in file=
    : >"$work/"$'e\e[31mvil\xe2\x80\xae.ir'  # empty: an error at 1:1
    "$tool" verify --error-format=github "$work/"$'e\e[31mvil\xe2\x80\xae.ir' 2>"$work/err"
    [ $? -eq 1 ] || { cat "$work/err"; fail "verify of a bad input did not exit 1"; }
    grep -qF 'vil\u202e.ir,line=' "$work/err" || { cat -A "$work/err"; fail "no escaped file= property"; }
    ! has_byte "$work/err" $'\e' || { cat -A "$work/err"; fail "stderr holds a raw ESC"; }
    ! has_byte "$work/err" $'\xe2\x80\xae' || fail "stderr holds a raw U+202E"
    ;;
  validate-report-escaped)  # validate's report on stdout: file names and op names shown escaped, a line each
    sed 's/"pd_op.relu"/"pd_op.re\x1b[31mlu"/' "$seed" >"$work/"$'a\nfake: ok\e[31m.ir'
    cp "$seed" "$work/b.ir"
    "$tool" validate --apply "$work/"$'a\nfake: ok\e[31m.ir' "$work/b.ir" >"$work/out" 2>"$work/err" ||
      { cat "$work/err"; fail "validate exited $?"; }
    grep -qF 'a\x0afake: ok\x1b[31m.ir: not simulated: pd_op.re\x1b[31mlu' "$work/out" || { cat -A "$work/out"; fail "the report is not escaped"; }
    ! grep -aq '^fake' "$work/out" || fail "a name started a line of the report"
    ! has_byte "$work/out" $'\e' || fail "stdout holds a raw ESC"
    ;;
  schedule-listing-escaped)  # schedule's listing and table on stdout: file names shown escaped, a line each
    for f in "$work/"$'r0\nfake: ok\e[31m.ir' "$work/r1.ir"; do cp tests/golden/schedule/clean_table.r0.ir "$f"; done
    cp tests/golden/schedule/clean_table.r1.ir "$work/r1.ir"
    "$tool" schedule "$work/"$'r0\nfake: ok\e[31m.ir' "$work/r1.ir" >"$work/out" 2>"$work/err" || { cat "$work/err"; fail "schedule exited $?"; }
    "$tool" schedule --table "$work/"$'r0\nfake: ok\e[31m.ir' "$work/r1.ir" >>"$work/out" 2>>"$work/err" || fail "schedule --table exited $?"
    grep -qF 'rank 0 (' "$work/out" && grep -qF 'r0\x0afake: ok\x1b[31m.ir' "$work/out" || { cat -A "$work/out"; fail "the listing is not escaped"; }
    ! grep -aq '^fake' "$work/out" || fail "a name started a line of the listing"
    ! has_byte "$work/out" $'\e' || fail "stdout holds a raw ESC"
    ;;
  dot-long-label-cut)  # print --emit=dot of an op on a 4,096-process mesh: every string fits Graphviz's 16 KiB buffer
    python3 - "$seed" "$work/wide.ir" <<'PY'
import sys
ids = ",".join(map(str, range(4096)))
text = open(sys.argv[1]).read().replace("shape:[2],process_ids:[0,1]", "shape:[4096],process_ids:[" + ids + "]")
open(sys.argv[2], "w").write(text.replace("mesh_shape:[2]", "mesh_shape:[4096]"))
PY
    "$tool" print --emit=dot "$work/wide.ir" >"$work/out.dot" 2>"$work/err" || { cat "$work/err"; fail "print exited $?"; }
    python3 - "$work/out.dot" <<'PY' || fail "a DOT string is longer than 16,000 bytes"
import re, sys
strings = re.findall(r'"((?:[^"\\]|\\.)*)"', open(sys.argv[1], encoding="utf-8").read())
sys.exit(0 if strings and max(map(len, strings)) <= 16000 and any(s.endswith("...") for s in strings) else 1)
PY
    # nop: Graphviz's parser alone (a label this wide is past what its layout draws).
    if command -v nop >/dev/null; then nop "$work/out.dot" >/dev/null || fail "Graphviz cannot read the graph"; fi
    ;;
  *) fail "unknown case $case" ;;
esac
echo PASS
