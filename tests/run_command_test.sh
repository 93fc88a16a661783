#!/usr/bin/env bash
# `reshardctl run`, end to end (registered in tests/golden.cmake):
#   run_command_test.sh TOOL samples DIR   every sample: all reshards PASS, exit 0
#   run_command_test.sh TOOL fault SAMPLE  a fault in reshard k fails exactly reshard k
#   run_command_test.sh TOOL nccl SAMPLE   without a GPU: exit 2 and a clear message
#   run_command_test.sh TOOL goldens DIR   every pass/, plan/ and apply/ golden input (not bad-*),
#                                          with its NAME.flags: all reshards PASS, exit 0
set -u
tool=$1 mode=$2 target=$3
fail() { echo "FAIL: $*"; exit 1; }
rows() { grep -E '^ +[0-9]+  %' "$1"; }

case $mode in
  samples)
    for sample in "$target"/*.ir; do
      out=$("$tool" run --apply --seed 7 "$sample") || fail "$sample: exit $?"$'\n'"$out"
      n=$(rows <(echo "$out") | wc -l)
      [ "$(echo "$out" | tail -1)" = "$n passed, 0 failed" ] || fail "$sample: last line: $(echo "$out" | tail -1)"
      grep -q FAIL <<<"$out" && fail "$sample: a FAIL row"
      # Bigger tensors and repeated runs must pass too.
      "$tool" run --apply --scale 33 --iters 3 "$sample" >/dev/null || fail "$sample --scale 33 --iters 3"
    done
    ;;
  goldens)
    for input in "$target"/pass/*.ir "$target"/plan/*.ir "$target"/apply/*.ir; do
      case $input in *.expected.ir|*/bad-*) continue ;; esac
      flags=()
      [ -f "${input%.ir}.flags" ] && read -r -a flags < "${input%.ir}.flags"
      out=$("$tool" run --apply "${flags[@]}" "$input" 2>&1) || fail "$input: exit $?"$'\n'"$out"
      grep -q FAIL <<<"$out" && fail "$input: a FAIL row"$'\n'"$out"
    done
    ;;
  fault)
    total=$("$tool" run --apply "$target" | rows /dev/stdin | wc -l)
    [ "$total" -ge 2 ] || fail "need a sample with two or more reshards"
    for k in $(seq 1 "$total"); do
      for kind in drop offset; do
        out=$("$tool" run --apply --inject-fault "$k:0:$kind" "$target")
        status=$?
        [ $status -eq 1 ] || fail "fault $k:0:$kind: exit $status"
        failed=$(rows <(echo "$out") | awk '/ FAIL / {print NR}' | tr '\n' ' ')
        [ "$failed" = "$k " ] || fail "fault $k:0:$kind: FAIL rows '$failed', expected '$k '"
        [ "$(echo "$out" | tail -1)" = "$((total - 1)) passed, 1 failed" ] || fail "fault $k: last line"
      done
    done
    ;;
  nccl)
    err=$("$tool" run --apply --backend nccl "$target" 2>&1 >/dev/null)
    status=$?
    if [ $status -eq 0 ]; then echo "a GPU is present: the nccl backend ran"; exit 0; fi
    [ $status -eq 2 ] || fail "exit $status, expected 2"
    grep -q "^reshardctl: error: the nccl backend is not available: .*\(GPU\|CUDA\)" <<<"$err" || fail "message: $err"
    ;;
esac
echo ok
