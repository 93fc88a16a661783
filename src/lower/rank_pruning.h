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

PruneResult removeOtherRankOps(Program& program, int64_t rank, DiagnosticEngine& diagnostics);

}  // namespace reshardctl
