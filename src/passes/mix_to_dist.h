// Paddle's apply_mix2dist_pass (MixToDistPass, paddle/fluid/pir/dialect/
// distributed/transforms/mix_to_dist_pass.cc, ProcessMixBlock), the pass
// Paddle runs on a program built with dist.shard_tensor before the partition
// pass (docs/passes.md, "apply_mix2dist_pass"): each `dist_op.shard_tensor` of
// the top-level block gives its layout to the `pd_op.data` or
// `builtin.parameter` op that made its input (the value takes the result's
// type, the op the shard_tensor's op_dist_attr), its uses move to that value,
// and it is erased. Work is linear in ops.
#pragma once

#include <cstddef>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "passes/partition_pass.h"

namespace reshardctl {

struct MixToDistResult {
  size_t removed = 0;  // shard_tensor ops folded into their input's op
  bool ok = true;      // false: one was refused (diagnosed at its line), as Paddle throws
};

MixToDistResult applyMixToDistPass(Program& program, DiagnosticEngine& diagnostics);

// What `--apply` runs for the commands that lower (lower, schedule,
// validate): Paddle's order in engine.py's _parallel_pir, this pass and then
// apply_partition_pass, each through runPass (pass_runner.h). False: one
// refused the program (diagnosed).
bool runMixToDistAndPartition(Program& program, DiagnosticEngine& diagnostics, const PartitionOptions& options);

}  // namespace reshardctl
