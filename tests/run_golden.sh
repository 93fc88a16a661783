#!/usr/bin/env bash
# One golden-file check, run by ctest (tests/golden.cmake: one table row per
# kind, one test per file). Each mode's command line is written here once.
#   run_golden.sh [--rebase] TOOL MODE INPUT [EXPECTED...]
#   pass       IN EXPECTED     apply IN == EXPECTED, and apply EXPECTED == EXPECTED
#   roundtrip  IN              print IN == IN, byte for byte
#   error      IN EXPECTED     print IN exits 1, writes no output, stderr == EXPECTED
#   verify     IN EXPECTED     verify IN exits 0 with stderr == EXPECTED (warnings);
#                              --werror exits 1; --quiet prints nothing
#   plan       IN TABLE JSON   plan --apply IN == TABLE, and the same report from
#                              planning apply's output (less the closing line that
#                              says the lines are the applied program's);
#                              plan --apply --json IN == JSON
#   plan-error IN STDERR       plan IN exits 1, writes nothing, stderr == STDERR
#   validate   CASE EXPECTED   "exit N", stdout and stderr of validate == EXPECTED;
#                              CASE is NAME.ir (validate flags in NAME.flags) or
#                              NAME.case, one line "INPUT FLAGS..." with INPUT
#                              relative to the repository root; an input named
#                              wrong_*.ir must also pass verify and apply
#   lower      IN EXPECTED     "exit N", stdout and stderr of lower == EXPECTED, flags
#                              from NAME.flags (default: --apply --all-ranks); when
#                              it lowers every rank, each rank's program (-o DIR)
#                              prints back byte for byte, passes verify, and diff
#                              compares the first two ranks' programs
#   schedule   CASE EXPECTED   "exit N", stdout and stderr of schedule == EXPECTED;
#                              CASE is NAME.case, one line "FILES... FLAGS..." with
#                              the files (the ranks' programs) beside it
#   run        CASE EXPECTED   "exit N", stdout and stderr of run == EXPECTED; CASE
#                              is NAME.case, one line "INPUT FLAGS..." as validate's
#                              (the refusals of reshards too large to run)
#   validate-nccl SAMPLE       --backend nccl without a GPU: exit 2 and a clear
#                              message (with one: exit 0); no golden file
# pass, plan, validate and lower take flags from IN's NAME.flags, if any. Everything
# runs from the input's folder, so messages name the file as "bad-x.ir".
# --rebase (or GOLDEN_REBASE=1 in the environment, as scripts/regen-goldens.sh
# sets for ctest) writes the output over the EXPECTED files instead of
# comparing; every other check still runs.
set -u
if [ "${1:-}" = --rebase ]; then export GOLDEN_REBASE=1; shift; fi
absolute() { case $1 in /* | '') echo "$1" ;; *) echo "$PWD/$1" ;; esac; }  # the modes change folder
tool=$1 mode=$2 input=$(absolute "$3")
[[ $tool == */* ]] && tool=$(absolute "$tool")
shift 3
expected=$(absolute "${1:-}") expected_json=$(absolute "${2:-}")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
source "$root/tests/golden_lib.sh"

read_flags() {  # read_flags IN: the words of IN's NAME.flags into `flags`
  flags=()
  [ -f "${1%.ir}.flags" ] && read -r -a flags <"${1%.ir}.flags"
}
capture() {  # capture COMMAND...: "exit N", its stdout and its stderr into $work/actual
  "$@" >"$work/stdout" 2>"$work/stderr"
  local status=$?
  { echo "exit $status"; echo "--- stdout"; cat "$work/stdout"; echo "--- stderr"; cat "$work/stderr"; } >"$work/actual"
}
expect_failure() {  # expect_failure OUT: the last command exited 1 and wrote no OUT
  [ "$status" -eq 1 ] || fail "expected exit code 1, got $status"
  [ ! -e "$1" ] || fail "an output file was written for bad input"
}

case $mode in
  pass)
    read_flags "$input"
    "$tool" apply "${flags[@]}" "$input" -o "$work/out.ir" || fail "apply ${flags[*]} exited $?"
    golden "$expected" "$work/out.ir" "apply output"
    "$tool" apply "${flags[@]}" "$expected" -o "$work/again.ir" || fail "apply on its own output exited $?"
    same "$expected" "$work/again.ir" "apply on the expected output (must change nothing)"
    ;;
  roundtrip)
    "$tool" print "$input" -o "$work/out.ir" || fail "print exited $?"
    same "$input" "$work/out.ir" "print output"
    ;;
  error | plan-error)
    command=print out=$work/out.ir
    [ "$mode" = plan-error ] && command=plan out=$work/out.txt
    (cd "$(dirname "$input")" && "$tool" $command "$(basename "$input")" -o "$out" 2>"$work/stderr")
    status=$?
    expect_failure "$out"
    golden "$expected" "$work/stderr" "stderr"
    ;;
  verify)
    cd "$(dirname "$input")" && name=$(basename "$input")
    "$tool" verify "$name" 2>"$work/stderr" || fail "verify exited $?"
    golden "$expected" "$work/stderr" "stderr"
    "$tool" verify --werror "$name" 2>/dev/null && fail "verify --werror exited 0 despite warnings"
    "$tool" verify --quiet "$name" 2>"$work/quiet" || fail "verify --quiet exited $?"
    [ ! -s "$work/quiet" ] || fail "verify --quiet printed warnings"
    ;;
  plan)
    read_flags "$input"
    cd "$(dirname "$input")" && input=$(basename "$input")
    "$tool" plan --apply "${flags[@]}" "$input" -o "$work/table.txt" || fail "plan --apply ${flags[*]} exited $?"
    golden "$expected" "$work/table.txt" "plan --apply"
    "$tool" apply "${flags[@]}" "$input" -o "$work/applied.ir" || fail "apply ${flags[*]} exited $?"
    "$tool" plan "$work/applied.ir" -o "$work/again.txt" || fail "plan on apply's output exited $?"
    # Less what only --apply can say: which lines are meant, and the input's op each inserted reshard is for.
    grep -v '^lines: of the program' "$expected" | sed -E 's/  \(for the op at input [0-9]+:[0-9]+\)$//' \
      >"$work/expected-plain.txt"
    same "$work/expected-plain.txt" "$work/again.txt" "plan on apply's output"
    "$tool" plan --apply --json "${flags[@]}" "$input" -o "$work/plan.json" || fail "plan --apply --json exited $?"
    golden "$expected_json" "$work/plan.json" "plan --apply --json"
    ;;
  validate)
    if [ "${input%.case}" != "$input" ]; then
      read -r -a words <"$input"
      input=$root/${words[0]}
      flags=("${words[@]:1}")
    else
      read_flags "$input"
    fi
    cd "$(dirname "$input")" && name=$(basename "$input")
    capture "$tool" validate "${flags[@]}" "$name"
    golden "$expected" "$work/actual" "validate ${flags[*]} $name"
    case $name in
      wrong_*)
        "$tool" verify --quiet "$name" || fail "verify rejects $name"
        "$tool" apply "$name" -o "$work/out.ir" || fail "apply rejects $name" ;;
    esac
    ;;
  run)
    read -r -a words <"$input"
    input=$root/${words[0]}
    flags=("${words[@]:1}")
    cd "$(dirname "$input")" && name=$(basename "$input")
    capture "$tool" run "${flags[@]}" "$name"
    golden "$expected" "$work/actual" "run ${flags[*]} $name"
    ;;
  lower)
    flags=(--apply --all-ranks)
    [ -f "${input%.ir}.flags" ] && read_flags "$input"
    cd "$(dirname "$input")" && name=$(basename "$input")
    "$tool" lower "${flags[@]}" "$name" >"$work/stdout" 2>"$work/stderr"
    status=$?
    { echo "exit $status"; echo "--- stdout"; cat "$work/stdout"; echo "--- stderr"; cat "$work/stderr"; } >"$work/actual"
    golden "$expected" "$work/actual" "lower ${flags[*]} $name"
    if [ $status -eq 0 ] && [[ " ${flags[*]} " == *" --all-ranks "* ]]; then
      # Into a file or to stdout each rank is written as it is lowered: the same bytes.
      "$tool" lower "${flags[@]}" "$name" -o "$work/ranks.log" 2>/dev/null || fail "lower -o FILE exited $?"
      same "$work/stdout" "$work/ranks.log" "lower -o FILE against its standard output"
      mkdir "$work/ranks" && "$tool" lower "${flags[@]}" "$name" -o "$work/ranks" 2>/dev/null || fail "lower -o DIR exited $?"
      for program in "$work"/ranks/rank*.ir; do
        "$tool" print "$program" -o "$work/printed.ir" || fail "print $(basename "$program") exited $?"
        same "$program" "$work/printed.ir" "print of $(basename "$program")"
        "$tool" verify --quiet "$program" || fail "verify rejects $(basename "$program")"
      done
      ranks=("$work"/ranks/rank*.ir)
      if [ ${#ranks[@]} -ge 2 ]; then
        "$tool" diff "${ranks[0]}" "${ranks[1]}" >/dev/null
        [ $? -le 1 ] || fail "diff of two ranks' programs failed"
      fi
    fi
    ;;
  schedule)
    read -r -a words <"$input"
    cd "$(dirname "$input")"
    capture "$tool" schedule "${words[@]}"
    golden "$expected" "$work/actual" "schedule ${words[*]}"
    ;;
  validate-nccl)
    err=$("$tool" validate --apply --backend nccl "$input" 2>&1 >/dev/null)
    status=$?
    if [ $status -eq 0 ]; then echo "a GPU is present: the nccl backend ran"; exit 0; fi
    [ $status -eq 2 ] || fail "exit $status, expected 2"
    grep -q "^reshardctl: error: the nccl backend is not available: .*\(GPU\|CUDA\)" <<<"$err" || fail "message: $err"
    ;;
  *) fail "unknown mode $mode" ;;
esac
echo "ok"
