// Paddle's apply_partition_pass (PR #63072, pir-format.md "The partition
// pass"): before every op whose operand entry in op_dist_attr differs from
// how the operand's value is distributed, insert a `dist_op.reshard` to the
// entry's layout and make the op use it. One reshard per mismatching use;
// inserted ops are not revisited; nested blocks are processed too.
#pragma once

#include <cstddef>
#include <vector>

#include "diagnostics.h"
#include "ir.h"
#include "rewriter.h"

namespace reshardctl {

struct PartitionResult {
  std::vector<Operation*> inserted;  // the new reshard ops, in insertion order
  bool ok = true;                    // false when a reshard could not be built (diagnosed)
};

PartitionResult applyPartitionPass(Program& program, DiagnosticEngine& diagnostics);

// Builds `dist_op.reshard(input) -> dst` at the rewriter's insertion point, as
// ReshardOp::Build does: op mesh = the input's mesh when both meshes are
// equal, else the merged 1-D mesh; result type = input type with dst's
// distribution. Returns nullptr (with a diagnostic at `location`) when the
// merged mesh cannot be known (a mesh given only by its shape).
Operation* createReshard(Rewriter& rewriter, Value* input, const TensorDistAttr& dst,
                         size_t location, DiagnosticEngine& diagnostics);

}  // namespace reshardctl
