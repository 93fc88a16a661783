#!/usr/bin/env bash
# `reshardctl validate --lowered`, end to end (registered in tests/golden.cmake):
#   validate_lowered_test.sh TOOL samples DIR    every sample: matches, or Paddle refuses a reshard (at its line)
#   validate_lowered_test.sh TOOL goldens DIR    every lower/ golden input (not bad-*, with its flags) and the
#                                                Llama/GPT tensor-parallel blocks: matches; warn-send_and_receive
#                                                (a rank that must send and receive): the wait that never ends
#   validate_lowered_test.sh TOOL plan-goldens DIR  every plan/ golden input (not bad-*) whose serial `validate`
#                                                checks every op: matches under --lowering=plan (every move the
#                                                planner makes: flattened groups, permutations, rescales, cuts)
#   validate_lowered_test.sh TOOL fault INPUT NAME   matches; with RESHARDCTL_FAULT_LOWERING=NAME a divergence, exit 1
#   validate_lowered_test.sh TOOL differential DIFFERENTIAL SEED COUNT [FLAGS]
#                                                the generator's programs (generation C): matches, or refused
set -u
tool=$1 mode=$2 target=$3
fail() { echo "FAIL: $*"; exit 1; }

# Matches (exit 0), or exit 1 where only Paddle's refusals to lower are the errors.
matches_or_refused() {
  local input=$1; shift
  local out status
  out=$("$tool" validate --lowered "$@" "$input" 2>&1)
  status=$?
  if [ $status -eq 0 ]; then
    grep -q "ops match the serial program" <<<"$out" || fail "$input: no summary"$'\n'"$out"
    return 0
  fi
  [ $status -eq 1 ] || fail "$input $*: exit $status"$'\n'"$out"
  grep ': error: ' <<<"$out" | grep -qv -e 'cannot lower this reshard' -e 'need static shapes' -e 'known only by their shape' \
    -e "Paddle's remove_other_rank_op_pass asserts" &&
    fail "$input $*: an error that is not a refusal"$'\n'"$out"
  return 0
}

case $mode in
  samples)
    for sample in "$target"/*.ir; do
      for lowering in paddle plan; do
        matches_or_refused "$sample" --apply --lowering=$lowering
        matches_or_refused "$sample" --apply --lowering=$lowering --seed 7
      done
    done
    ;;
  goldens)
    for input in "$target"/lower/*.ir; do
      case $input in */bad-*|*/warn-*|*/p_to_r_cross_mesh.ir) continue ;; esac
      flags=(--apply)
      [ -f "${input%.ir}.flags" ] && read -r -a flags < <(sed -e 's/--all-ranks//' -e 's/--rank [0-9]*//' \
        -e 's/--stage [a-z]*//' "${input%.ir}.flags")
      # A golden of --lowering=plan must match under it; every other, under Paddle's functions.
      case " ${flags[*]} " in
        *" --lowering=plan "*) ;;
        *) out=$("$tool" validate --lowered "${flags[@]}" "$input" 2>&1) || fail "$input: exit $?"$'\n'"$out" ;;
      esac
      base=()
      for flag in "${flags[@]}"; do [ "$flag" = --lowering=plan ] || base+=("$flag"); done
      matches_or_refused "$input" --lowering=plan "${base[@]}"
    done
    for input in "$target"/validate/llama_block_tp.ir "$target"/validate/gpt_block_tp.ir; do
      out=$("$tool" validate --lowered --apply "$input" 2>&1) || fail "$input: exit $?"$'\n'"$out"
      out=$("$tool" validate --lowered --apply --shrink=2 "$input" 2>&1) || fail "$input --shrink=2: exit $?"$'\n'"$out"
      out=$("$tool" validate --lowered --lowering=plan --apply "$input" 2>&1) || fail "$input (plan): exit $?"$'\n'"$out"
    done
    # Paddle's pruning refuses a rank that must both send and receive (p_to_r_cross_mesh).
    matches_or_refused "$target"/lower/p_to_r_cross_mesh.ir --apply
    out=$("$tool" validate --lowered --apply "$target"/lower/warn-send_and_receive.ir 2>&1)
    [ $? -eq 1 ] || fail "warn-send_and_receive: exit 0"
    grep -q "error: pd_op.recv_v2 on rank 2 waits forever: rank 1 never sends it a tensor" <<<"$out" ||
      fail "warn-send_and_receive: no hang"$'\n'"$out"
    ;;
  plan-goldens)
    checked=0
    for input in "$target"/plan/*.ir; do
      case $input in */bad-*) continue ;; esac
      flags=()
      grep -q '"dist_op.reshard"' "$input" || flags=(--apply)
      # A program the serial interpreter cannot check whole (a seeded input no pieces can
      # hold, an op it does not simulate) has nothing to compare the ranks with.
      serial=$("$tool" validate "${flags[@]}" "$input" 2>&1)
      if [ $? -ne 0 ] || grep -q 'not simulated' <<<"$serial"; then
        echo "left out: $input (its serial run does not check every op)"
        continue
      fi
      out=$("$tool" validate --lowered --lowering=plan "${flags[@]}" "$input" 2>&1) ||
        fail "$input --lowering=plan: exit $?"$'\n'"$out"
      grep -q "ops match the serial program on" <<<"$out" || fail "$input: no summary"$'\n'"$out"
      checked=$((checked + 1))
    done
    [ $checked -ge 12 ] || fail "only $checked plan goldens checked (12 expected)"
    echo "$checked plan goldens match under --lowering=plan"
    ;;
  fault)
    fault=$4
    "$tool" validate --lowered --apply "$target" >/dev/null 2>&1 || fail "$target fails without a fault"
    out=$(RESHARDCTL_FAULT_LOWERING=$fault "$tool" validate --lowered --apply "$target" 2>&1)
    status=$?
    [ $status -eq 1 ] || fail "fault $fault: exit $status"$'\n'"$out"
    grep -q "error: .*differs from the serial program" <<<"$out" || fail "fault $fault: no divergence"$'\n'"$out"
    ;;
  differential)
    # Where validate matches, validate --lowered matches or the lowering refuses a reshard at its line;
    # where validate diverges (the generator declares wrong layouts on purpose), --lowered may say either,
    # but always as a finding (exit 1), never a failure of the run.
    generator=$3 seed=$4 count=$5
    shift 5
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    declare -A matched=([paddle]=0 [plan]=0)
    for s in $(seq "$seed" $((seed + count - 1))); do
      input=$dir/p$s.ir
      "$generator" --seed "$s" --count 1 --print --no-run |
        awk '/^\/\/ seed .*generation C/{on=1;next} /^\/\/ seed/{on=0} /^[0-9]+ programs/{on=0} on' >"$input"
      "$tool" validate --apply "$@" "$input" >/dev/null 2>&1
      serial=$?
      for lowering in paddle plan; do
        if [ $serial -eq 0 ]; then
          matches_or_refused "$input" --apply --lowering=$lowering "$@"
        else
          "$tool" validate --lowered --apply --lowering=$lowering "$@" "$input" >/dev/null 2>&1
          status=$?
          [ $status -le 1 ] || fail "seed $s --lowering=$lowering: exit $status"
        fi
        "$tool" validate --lowered --apply --lowering=$lowering "$@" "$input" >/dev/null 2>&1 &&
          matched[$lowering]=$((matched[$lowering] + 1))
      done
    done
    echo "of $count programs, lowered and matched: ${matched[paddle]} (paddle), ${matched[plan]} (plan)"
    ;;
esac
echo ok
