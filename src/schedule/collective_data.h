// What one communication call does to the data (validate --lowered): every
// member's operand in, every member's result out. A collective is a reshard
// of the members' tensors on a 1-D mesh of its ranks, run by exec's executor
// through the interpreter's ReshardRunner (interp/reshard_runner.h):
//   all_reduce      P(reduce_type) -> R          all_gather  S(0) -> R
//   reduce_scatter  P(SUM) -> S(0)               all_to_all  S(0) -> S(1) of the
//   operands stacked on a new leading dim (rank i's chunk j goes to rank j,
//   which concatenates what it receives along dim 0: Paddle's AllToAll kernel).
// broadcast, reduce and barrier copy (the root's value, the reduced value on
// the root only, nothing). Point-to-point calls are paired by the caller.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <vector>

#include "interp/reshard_runner.h"
#include "interp/tensor.h"
#include "schedule/comm_call.h"

namespace reshardctl {

// The members' operands do not fit the call (shapes that differ, a dim the
// ranks cannot split evenly): what NCCL would run on is undefined.
struct CollectiveError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `members`: the communicator's ranks, sorted; `inputs`: each member's operand.
// Returns each member's result. Throws CollectiveError, and what
// ReshardRunner::move throws.
std::map<int64_t, Tensor> runCollective(const CommCall& call, const std::vector<int64_t>& members,
                                        const std::map<int64_t, const Tensor*>& inputs, ReshardRunner& runner);

}  // namespace reshardctl
