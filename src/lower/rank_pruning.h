// pir_pass.py RemovePasses.remove_other_rank_op_pass for one rank: walking
// each block backwards, an op whose op mesh does not hold the rank is erased,
// and so is every dist_op.reshard left (the fake ones), which Paddle asserts
// are unused. Ops without op_dist_attr (constants, combine) go with the ops
// they feed when they feed only erased ops.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ir/diagnostics.h"
#include "ir/ir.h"

namespace reshardctl {

struct PruneResult {
  size_t erased = 0;
  bool ok = true;  // false: a reshard still used (diagnosed at its line)
};

// Whether `op` has op_dist_attr whose mesh lacks `rank`: erased once unused.
bool offRank(const Operation& op, int64_t rank);
// Whether `op` is a constant (no op_dist_attr, no regions, results): erased
// once unused, with the ops it feeds.
bool isPrunableConstant(const Operation& op);

PruneResult removeOtherRankOps(Program& program, int64_t rank, DiagnosticEngine& diagnostics);

}  // namespace reshardctl
