#!/usr/bin/env bash
# Checks of the command line as a shell user and a CI job meet it, one case
# per ctest (tests/ci_tests.cmake), run from the repository root:
#   cli_features.sh TOOL CASE
set -u
tool=$1 case=$2
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/golden_lib.sh"
before=samples/seed_mlp_before.ir after=samples/seed_mlp_after.ir tp=samples/tp_mlp_2x2_before.ir
expect_exit() {  # expect_exit CODE COMMAND...: runs it with stdout/stderr in $work/out, $work/err
  local code=$1; shift
  "$@" >"$work/out" 2>"$work/err"
  local status=$?
  [ "$status" -eq "$code" ] || { cat "$work/err"; fail "$* exited $status, expected $code"; }
}
contains() { grep -qF -- "$2" "$1" || { cat "$1"; fail "$1 lacks: $2"; }; }
lacks() { ! grep -qF -- "$2" "$1" || { cat "$1"; fail "$1 has: $2"; }; }

case $case in
  apply-diff-patches)  # apply --diff, applied by patch -p0 and git apply -p0, gives apply's output
    cp "$before" "$tp" "$work/"
    (cd "$work" && "$tool" apply --diff seed_mlp_before.ir tp_mlp_2x2_before.ir >d.patch) || fail "apply --diff exited $?"
    "$tool" apply "$before" -o "$work/seed.expected" && "$tool" apply "$tp" -o "$work/tp.expected"
    (cd "$work" && git apply -p0 --check d.patch) || fail "git apply rejects the diff"
    (cd "$work" && patch -s -p0 <d.patch) || fail "patch rejects the diff"
    same "$work/seed.expected" "$work/seed_mlp_before.ir" "patched seed"
    same "$work/tp.expected" "$work/tp_mlp_2x2_before.ir" "patched tp"
    expect_exit 0 "$tool" apply --diff "$after"
    [ ! -s "$work/out" ] || fail "apply --diff printed a diff for a program apply does not change"
    expect_exit 2 "$tool" apply --diff --check "$before"  # a patch and a list on one stdout: refused
    contains "$work/err" "--check and --diff cannot be combined"
    [ ! -s "$work/out" ] || fail "apply --diff --check wrote something"
    expect_exit 2 "$tool" apply --check --diff --json "$before"
    contains "$work/err" "--check and --diff cannot be combined"
    ;;
  diff-unified-patches)  # diff -u is a unified diff of the two texts that patch applies; the listing is no patch
    expect_exit 1 "$tool" diff "$before" "$after"
    lacks "$work/out" "@@"
    lacks "$work/out" "+++"
    contains "$work/out" "changed pd_op.relu: operand 0, operand 0 type"
    ! patch -s --dry-run -o /dev/null "$before" <"$work/out" >/dev/null 2>&1 || fail "patch takes the listing for a patch"
    expect_exit 1 "$tool" diff -u "$before" "$after"
    contains "$work/out" "2 ops added, 0 removed, 2 changed"
    cp "$work/out" "$work/d.patch"
    patch -s -o "$work/patched.ir" "$before" <"$work/d.patch" || fail "patch rejects diff -u"
    same "$after" "$work/patched.ir" "patched before"
    expect_exit 0 "$tool" diff -u "$after" tests/golden/diff/seed_after_renumbered.ir
    [ ! -s "$work/out" ] || fail "diff -u printed something for programs equal by structure"
    ;;
  several-inputs)  # the worst status wins; a summary line per file
    expect_exit 1 "$tool" verify "$before" tests/golden/errors/bad-truncated.ir "$after"
    contains "$work/err" "$before: ok"
    contains "$work/err" "bad-truncated.ir: 1 error"
    contains "$work/err" "verified 3 files: 2 ok, 0 with warnings, 1 with errors"
    expect_exit 2 "$tool" verify "$before" no-such-file.ir
    expect_exit 0 "$tool" print "$before" "$after"
    { "$tool" print "$before"; "$tool" print "$after"; } >"$work/both"
    same "$work/both" "$work/out" "print of two inputs"
    expect_exit 1 "$tool" print "$before" tests/golden/errors/bad-truncated.ir -o "$work/printed.ir"
    [ ! -e "$work/printed.ir" ] || fail "print wrote its output although an input was bad"
    expect_exit 2 "$tool" apply "$before" "$after"
    contains "$work/err" "several inputs need --check, --diff or --in-place"
    cp "$before" "$work/a.ir" && cp "$after" "$work/b.ir"
    expect_exit 0 "$tool" apply -i "$work/a.ir" "$work/b.ir"
    same "$after" "$work/a.ir" "apply -i of the first input"
    same "$after" "$work/b.ir" "apply -i of the second input"
    expect_exit 1 "$tool" apply --check "$before" "$after"
    contains "$work/err" "$before: 2 reshards would be inserted"
    contains "$work/err" "$after: 0 reshards would be inserted"
    contains "$work/err" "2 reshards would be inserted in 1 of 2 files"
    expect_exit 2 "$tool" print - -
    ;;
  recursive)  # -r walks directories in order, skips hidden ones, --glob picks names
    mkdir -p "$work/d/sub" "$work/d/.hidden"
    cp "$before" "$work/d/sub/x.ir" && cp "$after" "$work/d/a.ir" && cp "$before" "$work/d/.hidden/h.ir"
    cp "$after" "$work/d/notes.txt" && cp "$after" "$work/d/run.log.txt"
    expect_exit 1 "$tool" apply --check -r "$work/d"
    contains "$work/err" "$work/d/a.ir: 0 reshards would be inserted"
    contains "$work/err" "$work/d/sub/x.ir: 2 reshards would be inserted"
    lacks "$work/err" ".hidden"
    lacks "$work/err" "notes.txt"
    expect_exit 0 "$tool" verify -r "$work/d" --glob '*.txt'
    contains "$work/err" "notes.txt: ok"
    contains "$work/err" "run.log.txt: ok"
    expect_exit 2 "$tool" verify "$work/d"
    contains "$work/err" "is a directory; use -r"
    mkdir "$work/empty" && expect_exit 0 "$tool" verify -r "$work/empty"
    contains "$work/err" "warning: no file under"
    ;;
  color)  # colour only when asked for, or on a terminal without NO_COLOR
    expect_exit 0 "$tool" verify --color=always tests/golden/verify/warn-gen-c.ir
    contains "$work/err" $'\e[1;35mwarning:'
    NO_COLOR=1 expect_exit 0 "$tool" verify --color=always tests/golden/verify/warn-gen-c.ir
    contains "$work/err" $'\e['
    expect_exit 0 "$tool" verify tests/golden/verify/warn-gen-c.ir  # auto, not a terminal
    lacks "$work/err" $'\e['
    expect_exit 1 "$tool" diff -u --color=always "$before" "$after"
    contains "$work/out" $'\e[32m+'
    if command -v script >/dev/null; then  # a terminal: auto colours, NO_COLOR stops it
      script -qec "$tool verify tests/golden/verify/warn-gen-c.ir" /dev/null >"$work/tty" 2>&1
      contains "$work/tty" $'\e['
      NO_COLOR=1 script -qec "$tool verify tests/golden/verify/warn-gen-c.ir" /dev/null >"$work/tty" 2>&1
      lacks "$work/tty" $'\e['
    fi
    ;;
  warnings)  # -W names: off, on again, as errors; --werror
    expect_exit 0 "$tool" verify -Wno-uneven-shards tests/golden/verify/warn-gen-c.ir
    lacks "$work/err" "uneven"
    contains "$work/err" "[-Wdense-operand]"
    expect_exit 0 "$tool" verify -Wno-uneven-shards -Wuneven-shards tests/golden/verify/warn-gen-c.ir
    contains "$work/err" "[-Wuneven-shards]"
    expect_exit 1 "$tool" verify -Werror=extra-entry tests/golden/verify/warn-gen-c.ir
    contains "$work/err" "error: operand(2) has no operand: the op has 2 operands [-Werror=extra-entry]"
    contains "$work/err" "warning: operand 1 is a dense tensor"
    expect_exit 1 "$tool" verify --werror tests/golden/verify/warn-gen-c.ir
    expect_exit 1 "$tool" verify -Werror -Wno-error=uneven-shards tests/golden/verify/warn-gen-c.ir
    contains "$work/err" "warning: result 0: dim 0 of size 7"
    expect_exit 2 "$tool" verify -Wuneven-shard tests/golden/verify/warn-gen-c.ir
    contains "$work/err" "did you mean '-Wuneven-shards'?"
    ;;
  max-errors)  # the limit says it stopped; 0 lifts it
    expect_exit 1 "$tool" verify --max-errors 3 tests/golden/errors/bad-many-errors.ir
    [ "$(grep -c ': error: use of undefined value' "$work/err")" -eq 3 ] || fail "not 3 errors shown"
    contains "$work/err" "too many errors: stopped after 3"
    expect_exit 1 "$tool" verify --max-errors 0 tests/golden/errors/bad-many-errors.ir
    [ "$(grep -c ': error: use of undefined value' "$work/err")" -eq 25 ] || fail "not all 25 errors shown"
    lacks "$work/err" "too many errors"
    ;;
  github)  # workflow commands GitHub turns into annotations
    expect_exit 1 "$tool" apply --check --error-format=github "$before"
    contains "$work/err" "::warning file=$before,line=11,col=5,endColumn=6,title=reshard-needed::pd_op.relu operand 0 (%258)"  # % is escaped as %25
    contains "$work/err" "2 reshards would be inserted"
    expect_exit 1 "$tool" verify --error-format=github tests/golden/errors/bad-truncated.ir
    grep -q '^::error file=tests/golden/errors/bad-truncated.ir,line=[0-9]*,col=[0-9]*,endColumn=[0-9]*,title=syntax-error::' \
      "$work/err" || { cat "$work/err"; fail "no ::error line"; }
    ;;
  usage)  # what is wrong, by name, with the closest right spelling
    expect_exit 2 "$tool" aply "$before"
    contains "$work/err" "unknown subcommand 'aply'; did you mean 'apply'?"
    expect_exit 2 "$tool" apply --chek "$before"
    contains "$work/err" "unknown flag '--chek' for 'apply'; did you mean '--check'?"
    expect_exit 2 "$tool" --color=never verify "$before"
    contains "$work/err" "'--color' goes after the subcommand: reshardctl verify --color=never"
    expect_exit 2 "$tool" run --scale 0 "$before"
    contains "$work/err" "--scale: must be an integer from 1 to"
    expect_exit 2 "$tool" plan --bandwidth 1e400 "$before"
    contains "$work/err" "--bandwidth: must be a number greater than 0 and at most 1e+06 (GB/s), not '1e400'"
    expect_exit 2 "$tool"
    contains "$work/err" "a subcommand is required"
    expect_exit 0 "$tool" -V
    contains "$work/out" "reshardctl "
    contains "$work/out" "backends: cpu"
    expect_exit 2 "$tool" apply --check -o "$work/x.ir" "$before"
    expect_exit 2 "$tool" apply --check -i "$work/x.ir"
    expect_exit 1 "$tool" apply --check --stats "$before"
    contains "$work/err" "apply: would insert 2 reshards"
    ;;
  logs-in-turn)  # several inputs or -r: each program of a log in turn, named FILE#N; one file: choose
    log=tests/golden/logs/train.log
    expect_exit 1 "$tool" verify -r tests/golden/logs
    contains "$work/err" "$log#1: ok"
    contains "$work/err" "$log#3: ok"
    contains "$work/err" "tests/golden/logs/bad-syntax-in-log.log: 1 error"
    contains "$work/err" "verified 22 programs of 18 files: 19 ok, 0 with warnings, 3 with errors"
    lacks "$work/err" "choose one with --program"
    expect_exit 2 "$tool" verify "$log"  # one file: which program?
    contains "$work/err" "holds 3 programs; choose one with --program N"
    expect_exit 0 "$tool" verify --program 2 "$log" tests/golden/logs/cinn_2025.log  # --program filters every file
    contains "$work/err" "$log#2: ok"
    contains "$work/err" "verified 2 files: 2 ok"
    expect_exit 1 "$tool" apply --check -r "$log"
    contains "$work/err" "$log#1: 2 reshards would be inserted"
    contains "$work/err" "$log#2: 0 reshards would be inserted"
    contains "$work/err" "9 reshards would be inserted in 2 of 3 programs of 1 file"
    contains "$work/err" "$log:19:5: warning: pd_op.relu operand 0 (%8)"  # the log's own lines
    expect_exit 1 "$tool" apply --check --json "$log" "$after"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([(f["file"],f["program"],len(f["reshards"])) for f in d["files"]])' \
      "$work/out" >"$work/files"
    contains "$work/files" "('$log', 1, 2), ('$log', 2, 0), ('$log', 3, 7), ('$after', None, 0)"
    expect_exit 1 "$tool" validate "$log" "$after"
    contains "$work/out" "$log#2: 28 of 28 ops match the serial program on 2 ranks"
    contains "$work/out" "$log#1: 9 of 26 ops match the serial program on 2 ranks; 1 diverges"
    contains "$work/out" "validated 4 programs of 2 files: 2 match, 2 diverge, 0 failed"
    expect_exit 0 "$tool" print "$log" "$after" -o "$work/all.log"  # programs one after another: a log
    expect_exit 0 "$tool" list "$work/all.log"
    [ "$(grep -c ' yes ' "$work/out")" -eq 4 ] || { cat "$work/out"; fail "print did not write the 4 programs"; }
    expect_exit 0 "$tool" print --brief "$log" "$after"
    contains "$work/out" "==> $log#3 <=="
    contains "$work/out" "==> $after <=="
    expect_exit 2 "$tool" print --emit=html "$log" "$after"
    contains "$work/err" "--emit=html writes one page: it takes one input"
    cp "$log" "$work/train.log" && cp "$before" "$work/"
    expect_exit 2 "$tool" apply -i "$work/train.log" "$work/seed_mlp_before.ir"  # a file written back whole: choose
    contains "$work/err" "holds 3 programs; choose one with --program N"
    same "$log" "$work/train.log" "the log after a refused apply -i"
    (cd "$work" && "$tool" apply --diff train.log seed_mlp_before.ir >d.patch) || fail "apply --diff exited $?"
    (cd "$work" && patch -s -p0 <d.patch) || fail "patch rejects the diff of a log's programs"
    expect_exit 0 "$tool" apply --check -r "$work/train.log" "$work/seed_mlp_before.ir"
    ;;
  stats-every-format)  # apply --stats in every --error-format (a note in JSON and SARIF); -q drops the status lines
    expect_exit 1 "$tool" apply --check --stats --error-format=json "$before"
    contains "$work/err" '"severity":"note","code":"stats","message":"apply: would insert 2 reshards'
    expect_exit 1 "$tool" apply --check --stats --error-format=sarif "$before"
    python3 -c 'import json, sys; notes = json.load(sys.stdin)["runs"][0]["invocations"][0]["toolExecutionNotifications"]
assert any(n["level"] == "note" and n["message"]["text"].startswith("apply: would insert 2 reshards") for n in notes), notes' \
      <"$work/err" || fail "the SARIF log holds no stats note"
    expect_exit 1 "$tool" apply --check --stats --error-format=github "$before"
    contains "$work/err" "apply: would insert 2 reshards"
    expect_exit 1 "$tool" apply --check -q --stats "$before" "$before"
    contains "$work/err" "apply: would insert 2 reshards"
    lacks "$work/err" "2 reshards would be inserted in"
    expect_exit 0 "$tool" help plan
    contains "$work/out" "Usage: "
    expect_exit 0 "$tool" help apply  # the default subcommand too
    contains "$work/out" "apply [OPTIONS]"
    COLUMNS=60 "$tool" apply --help >"$work/help" || fail "apply --help failed"
    ! awk 'length > 60' "$work/help" | grep -q . || fail "--help is not wrapped to COLUMNS=60"
    expect_exit 2 "$tool" help plan extra
    contains "$work/err" "help takes at most one subcommand"
    expect_exit 2 "$tool" help aply
    contains "$work/err" "did you mean 'apply'?"
    ;;
  list-several)  # list: one table per file under its name; one JSON document
    expect_exit 0 "$tool" list tests/golden/logs/train.log tests/golden/logs/cinn_2023.log
    contains "$work/out" "tests/golden/logs/train.log:"
    contains "$work/out" "tests/golden/logs/cinn_2023.log:"
    [ "$(grep -c '^#  lines' "$work/out")" -eq 2 ] || fail "not one table per file"
    expect_exit 1 "$tool" list -r tests/golden/logs tests/golden/errors/bad-binary-garbage.ir
    contains "$work/err" "no program found in 'tests/golden/errors/bad-binary-garbage.ir'"
    contains "$work/out" "tests/golden/logs/one_program.log:"
    expect_exit 2 "$tool" list no-such-file.log -o "$work/list.txt"
    [ ! -e "$work/list.txt" ] || fail "list wrote its output although an input was unreadable"
    ;;
  mpi-start)  # the multi-process mode that cannot start says so through --error-format, from every process
    if "$tool" --version | grep -q 'mpirun: yes'; then echo "built with MPI: tests/mpi_tests.cmake covers it"; exit 77; fi
    expect_exit 2 "$tool" run --backend nccl --launcher mpi --error-format=json "$after"
    contains "$work/err" '"severity":"error","code":"tool-error","message":"the multi-process mode was asked for (--launcher mpi), but reshardctl was built without MPI'
    OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1 expect_exit 2 "$tool" run --backend nccl --error-format=github "$after"
    contains "$work/err" "::error title=tool-error::process 1: the multi-process mode was asked for (OMPI_COMM_WORLD_SIZE)"
    ;;
  *) fail "unknown case $case" ;;
esac
echo ok
