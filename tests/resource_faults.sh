#!/usr/bin/env bash
# Resource faults and hostile inputs, one check per call (tests/resource_tests.cmake):
#   resource_faults.sh TOOL SEED CHECK
# TOOL: the reshardctl binary; SEED: samples/seed_mlp_before.ir. Every check
# is deterministic: limits and pipes, never timing.
set -u
tool=$1 seed=$2 check=$3
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; [ -s "$work/stderr" ] && head -c 2000 "$work/stderr"; exit 1; }
# expect STATUS PATTERN CMD...: the exit status, and PATTERN (grep -E) in stderr.
expect() {
  local status=$1 pattern=$2; shift 2
  "$@" >"$work/stdout" 2>"$work/stderr"
  local got=$?
  [ "$got" -eq "$status" ] || fail "$* exited $got, expected $status"
  grep -Eq -- "$pattern" "$work/stderr" || fail "$*: stderr does not match '$pattern'"
}
no_temp_left() { ! ls -A "$1" | grep -q reshardctl- || fail "a temporary file was left: $(ls -A "$1")"; }

case $check in
  out-of-memory)
    # A real allocation failure under an address-space limit: `run` asked for
    # tensors of 2^25 doubles (256 MiB each) with 400 MB to live in (within
    # run's own bound of 4 GiB, which refuses a larger --scale before running).
    echo "earlier output" >"$work/out.txt"
    (ulimit -v 400000; exec "$tool" run --apply --scale 1048576 "$seed" -o "$work/out.txt") 2>"$work/stderr"
    status=$?
    [ $status -eq 2 ] || fail "out of memory exited $status, expected 2"
    grep -q "^reshardctl: error: out of memory" "$work/stderr" || fail "no out-of-memory message"
    ! grep -q "terminate called" "$work/stderr" || fail "std::bad_alloc escaped"
    [ "$(cat "$work/out.txt")" = "earlier output" ] || fail "the earlier output changed"
    no_temp_left "$work"
    ;;
  validate-out-of-memory)
    # validate's kernels run out of memory on a 8192x8192 tensor (512 MiB of
    # doubles) in 400 MB: that is the run's failure, never "not simulated"
    # nor a divergence of a correct program.
    full='op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},result(0):{dims_maping:[0,-1]}}'
    type='pd_dist.tensor<8192x8192xf32, mesh_shape:[2],dims_mappings:[0,-1]>'
    printf '{\n    (%%0) = "pd_op.full" () {dtype:(pd_op.DataType)float32,%s,place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[8192,8192],stop_gradient:[true],value:(Float)1} : () -> %s\n}\n' \
      "$full" "$type" >"$work/big.ir"
    (ulimit -v 400000; exec "$tool" validate "$work/big.ir") >"$work/stdout" 2>"$work/stderr"
    status=$?
    [ $status -eq 2 ] || fail "validate out of memory exited $status, expected 2"
    grep -q "^reshardctl: error: out of memory" "$work/stderr" || fail "no out-of-memory message"
    grep -q "GiB in this process.*--shrink=.*share the ranks over more processes (mpirun -np 2)" "$work/stderr" ||
      fail "the out-of-memory message names no figure, or neither --shrink nor more processes"
    ! grep -Eq "not simulated|diverge" "$work/stdout" "$work/stderr" || fail "out of memory reported as the program's"
    ;;
  validate-memory-per-process)
    # 64 ranks each holding replicated 16x16 values: 2 KiB serially, 128 KiB
    # over the ranks, per value. Over --max-memory in one process: refused up
    # front with the figure and the way out (--shrink, or the processes that
    # would fit), never run into a divergence.
    python3 "$(dirname "$0")/../scripts/many_ranks.py" --ranks 64 --size 16 --layers 2 >"$work/many.ir" ||
      fail "the generator failed"
    expect 2 "^reshardctl: error: .*validate refuses the program: its values, serial and on the ranks, need [0-9.e+]+ \
bytes, more than --max-memory=300000 \(raise it to run it anyway, validate a smaller copy with --shrink, or share the \
ranks over [0-9]+ processes \(mpirun -np [0-9]+\)\)" "$tool" validate --apply --shrink=off --max-memory 300000 "$work/many.ir"
    ! grep -Eq "diverge" "$work/stdout" "$work/stderr" || fail "the budget reported as a divergence"
    # With the budget it asks for, it runs and matches.
    "$tool" validate --apply --shrink=off "$work/many.ir" >"$work/stdout" 2>"$work/stderr" || fail "validate exited $?"
    grep -q "match" "$work/stdout" || fail "no match: $(cat "$work/stdout")"
    ;;
  endless-pipe)
    # `yes` never ends: reading stops at the limit, with a located error.
    RESHARDCTL_MAX_INPUT=64K expect 1 '^<stdin>:[0-9]+:[0-9]+: error: the input is larger than the limit of 64 KiB' \
      bash -c "yes '    (%0) = \"pd_op.full\" () {} : () -> builtin.tensor<f32>' | \"\$0\" apply -" "$tool"
    ;;
  endless-fifo)
    mkfifo "$work/fifo"
    yes '    (%0) = "pd_op.full" () {} : () -> builtin.tensor<f32>' >"$work/fifo" 2>/dev/null &
    writer=$!
    RESHARDCTL_MAX_INPUT=1M expect 1 "^$work/fifo:[0-9]+:[0-9]+: error: the input is larger than the limit of 1 MiB" \
      "$tool" apply "$work/fifo"
    kill $writer 2>/dev/null; wait $writer 2>/dev/null
    ;;
  dev-zero)
    expect 1 '^/dev/zero:1:1: error: a NUL byte: the input is binary data' "$tool" apply /dev/zero
    expect 1 '^<stdin>:1:1: error: a NUL byte' bash -c '"$0" print - </dev/zero' "$tool"
    ;;
  input-limit)
    RESHARDCTL_MAX_INPUT=1000 expect 1 "^$seed:[0-9]+:[0-9]+: error: the input is larger than the limit of 1000 bytes" \
      "$tool" verify "$seed"
    RESHARDCTL_MAX_INPUT=12Q expect 2 "^reshardctl: error: RESHARDCTL_MAX_INPUT='12Q' is not a size" "$tool" verify "$seed"
    RESHARDCTL_MAX_INPUT=5G expect 2 "RESHARDCTL_MAX_INPUT='5G' is not a size from 1 to 4G-1" "$tool" verify "$seed"
    ;;
  stdin-is-a-file)
    # Standard input redirected from a file is mapped like the file itself.
    "$tool" apply - <"$seed" >"$work/a" || fail "apply - < file exited $?"
    "$tool" apply "$seed" >"$work/b" || fail "apply file exited $?"
    cmp -s "$work/a" "$work/b" || fail "stdin and file outputs differ"
    ;;
  write-errors)
    # Every failed write says why, with exit 2.
    full='No space left on device'
    expect 2 "cannot write '<stdout>': $full" bash -c '"$0" apply --check --json "$1" >/dev/full' "$tool" "$seed"
    expect 2 "cannot write '<stdout>': $full" bash -c '"$0" apply "$1" >/dev/full' "$tool" "$seed"
    expect 2 "cannot write '/dev/full': $full" "$tool" print --emit=json "$seed" -o /dev/full
    expect 2 "cannot write '<stdout>': $full" bash -c '"$0" diff --stat "$1" "$1" >/dev/full' "$tool" "$seed"
    expect 2 "cannot write '<stdout>': $full" bash -c '"$0" plan --apply "$1" >/dev/full' "$tool" "$seed"
    expect 2 "cannot write '<stdout>': $full" bash -c '"$0" run --apply "$1" >/dev/full' "$tool" "$seed"
    # What goes through the standard-output sink itself: status lines, --json, --generate.
    expect 2 "cannot write '<stdout>': $full" bash -c '"$0" apply --check --json "$1" "$1" >/dev/full' "$tool" "$seed"
    expect 2 "cannot write '<stdout>': $full" bash -c '"$0" verify --json "$1" >/dev/full' "$tool" "$seed"
    expect 2 "cannot write '<stdout>': $full" bash -c '"$0" --generate=man >/dev/full' "$tool"
    ;;
  fake-mpi-world)
    # mpirun's variables without mpirun (or without an MPI build): exit 2 with a reason.
    OMPI_COMM_WORLD_SIZE=2 expect 2 '^reshardctl: error: .+' timeout 120 "$tool" run --backend nccl --apply "$seed"
    OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1 expect 2 '^reshardctl: error: .+' \
      timeout 120 "$tool" run --backend nccl --apply "$seed"
    ;;
  cost-flags)
    "$tool" plan --bandwidth 370,25 --latency 1,2 "$seed" >"$work/stdout" 2>"$work/stderr" ||
      fail "--bandwidth 370,25 FILE exited $?"
    grep -q "mesh dim 0: 370 GB/s, 1 us/hop; mesh dim 1: 25 GB/s, 2 us/hop" "$work/stdout" ||
      fail "the cost model did not take both values: $(tail -1 "$work/stdout")"
    for bad in nan inf -1 0 1e300 370,nan 12x; do
      expect 2 "--bandwidth: must be a number greater than 0 and at most 1e\+06 \(GB/s\), not '[^']*'" \
        "$tool" plan --bandwidth "$bad" "$seed"
      [ "$(wc -c <"$work/stderr")" -lt 200 ] || fail "--bandwidth $bad: a long message"
    done
    expect 2 "--latency: must be a number from 0 to 1e\+09 \(us\), not '-2'" "$tool" plan --latency -2 "$seed"
    expect 2 "--cross-bandwidth: must be a number .*, not 'nan'" "$tool" plan --cross-bandwidth nan "$seed"
    ;;
  scale-flag)
    for bad in 0 -3 9223372036854775808 134217729 1.5; do
      expect 2 "--scale: must be an integer from 1 to 134217728, not '[^']*'" "$tool" run --scale "$bad" "$seed"
    done
    expect 2 "--iters: must be an integer from 1 to 1000000, not '0'" "$tool" run --iters 0 "$seed"
    ;;
  size-overflow)
    # 2^60 x 8 f32 elements: 2^65 bytes. A located error, never a wrapped size.
    sed 's/4x8xf32/1152921504606846976x8xf32/g' "$seed" >"$work/huge.ir"
    expect 1 "^$work/huge.ir:[0-9]+:[0-9]+: error: cannot plan the reshard of %8: the tensor \(1152921504606846976x8xf32\) is too large" \
      "$tool" plan --apply "$work/huge.ir"
    ! grep -q "bytes_per_rank.: *-" "$work/stdout" || fail "a negative byte count"
    # dims x --scale overflowing 64 bits: that reshard fails, nothing passes.
    sed 's/4x8xf32/4398046511104x8xf32/g' "$seed" >"$work/wide.ir"
    "$tool" run --apply --scale 134217728 "$work/wide.ir" >"$work/stdout" 2>"$work/stderr"
    [ $? -eq 1 ] || fail "an overflowing --scale should fail the run"
    grep -q "makes the tensor's largest dim (4398046511104) overflow 64 bits" "$work/stdout" || fail "no overflow row"
    grep -q "^0 passed" "$work/stdout" || fail "something passed: $(tail -1 "$work/stdout")"
    ;;
  in-place-hard-link)
    cp "$seed" "$work/prog.ir" && ln "$work/prog.ir" "$work/other.ir" && chmod 640 "$work/prog.ir"
    inode=$(stat -c %i "$work/prog.ir")
    "$tool" apply -i "$work/prog.ir" || fail "apply -i exited $?"
    [ "$(stat -c '%i %h %a' "$work/prog.ir")" = "$inode 2 640" ] || fail "inode, links or mode changed"
    cmp -s "$work/prog.ir" "$work/other.ir" || fail "the other link does not see the output"
    "$tool" apply "$seed" | cmp -s - "$work/other.ir" || fail "wrong output"
    no_temp_left "$work"
    ;;
  long-output-name)
    name=$work/$(printf 'n%.0s' $(seq 1 250)).ir
    "$tool" apply "$seed" -o "$name" || fail "a 253-byte output name exited $?"
    [ -s "$name" ] || fail "the output is missing"
    no_temp_left "$work"
    ;;
  *) echo "unknown check $check"; exit 2 ;;
esac
echo ok
