// Paddle's apply_partition_pass (PR #63072; docs/passes.md,
// "apply_partition_pass"): before every op whose operand entry in op_dist_attr differs from
// how the operand's value is distributed, insert a `dist_op.reshard` to the
// entry's layout and make the op use it. One reshard per mismatching use;
// inserted ops are not revisited; nested blocks are processed too.
//
// Tensor-list operands (a `vec[..]` made by builtin.combine, with an array
// entry) are handled as Paddle's v5 pass does (docs/passes.md, "apply_partition_pass"):
// each element is resharded, a new builtin.combine goes right before the op,
// and the old combine is erased once unused. PartitionOptions switch on the
// behaviour of Paddle's later passes; all are off by default (the seed PR).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "ir/rewriter.h"

namespace reshardctl {

struct PartitionOptions {
  // decompose_reshard_pass (PR #69009): a change of mesh and layout becomes a
  // move to the destination mesh keeping the layout, then the layout change.
  bool splitCrossMesh = false;
  // v4+ fold: reshard a reshard's result from that reshard's input; erase a
  // reshard left without uses.
  bool fold = false;
  // fold_reshard_pass: one reshard per (value, destination layout).
  bool dedupe = false;
  // v4+ result handling: a result whose type disagrees with its entry takes
  // the entry's layout, and a reshard back to the old layout follows the op.
  bool reshardResults = false;
};

struct PartitionResult {
  std::vector<Operation*> inserted;  // the new reshard ops, in insertion order
  std::vector<Operation*> combines;  // the new builtin.combine ops
  size_t erased = 0;                 // ops removed (old combines, folded reshards)
  bool ok = true;                    // false when a rewrite could not be built (diagnosed)
};

PartitionResult applyPartitionPass(Program& program, DiagnosticEngine& diagnostics,
                                   const PartitionOptions& options = {});

}  // namespace reshardctl
