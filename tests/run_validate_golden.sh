#!/usr/bin/env bash
# One `validate` golden, run by ctest (tests/golden.cmake registers one per file):
#   run_validate_golden.sh TOOL CASE EXPECTED
# CASE is tests/golden/validate/NAME.ir (validate flags in NAME.flags, if any)
# or NAME.case, one line "INPUT FLAGS..." with INPUT relative to the
# repository root (the bundled samples, or one input under other flags).
# `validate` runs from the input's folder, so messages name the file as
# "seed_mlp_before.ir"; EXPECTED holds "exit N", its standard output and its
# standard error. An input named wrong_*.ir must also pass `verify` and
# `apply`: only `validate` can tell that it is wrong.
# With REGEN=1 the output is written to EXPECTED instead (scripts/regen-goldens.sh).
#   run_validate_golden.sh TOOL nccl SAMPLE
# --backend nccl without a GPU: exit 2 and a clear message (with one: exit 0).
set -u
tool=$1 case_file=$2 expected=$3
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/tests/golden_lib.sh"
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT

if [ "$case_file" = nccl ]; then
  err=$("$tool" validate --apply --backend nccl "$expected" 2>&1 >/dev/null)
  status=$?
  if [ $status -eq 0 ]; then echo "a GPU is present: the nccl backend ran"; exit 0; fi
  [ $status -eq 2 ] || fail "exit $status, expected 2"
  grep -q "^reshardctl: error: the nccl backend is not available: .*\(GPU\|CUDA\)" <<<"$err" || fail "message: $err"
  echo ok
  exit 0
fi

flags=()
if [ "${case_file%.case}" != "$case_file" ]; then
  read -r -a words < "$case_file"
  input=$root/${words[0]}
  flags=("${words[@]:1}")
else
  input=$case_file
  [ -f "${input%.ir}.flags" ] && read -r -a flags < "${input%.ir}.flags"
fi
cd "$(dirname "$input")" && name=$(basename "$input")
"$tool" validate "${flags[@]}" "$name" >"$work/stdout" 2>"$work/stderr"
status=$?
{ echo "exit $status"; echo "--- stdout"; cat "$work/stdout"; echo "--- stderr"; cat "$work/stderr"; } >"$work/actual"
if [ "${REGEN:-}" = 1 ]; then
  cp "$work/actual" "$expected"
  exit 0
fi
same "$expected" "$work/actual" "validate ${flags[*]} $name"
case $name in
  wrong_*)
    "$tool" verify --quiet "$name" || fail "verify rejects $name"
    "$tool" apply "$name" -o "$work/out.ir" || fail "apply rejects $name" ;;
esac
echo ok
