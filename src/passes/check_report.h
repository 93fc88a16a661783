// What `apply --check` prints: one line per reshard the pass inserted,
// naming the op that needed it by its source line and the operand by the
// name it has in the input.
#pragma once

#include <string>

#include "ir/source.h"
#include "passes/partition_pass.h"
#include "syntax/printer.h"

namespace reshardctl {

// `names` must number the program as it was before the pass (so "%8" is the
// input's %8). One line per inserted reshard:
//   seed.ir:11: pd_op.relu operand 0 (%8): would insert dist_op.reshard
//     from mesh_shape:[2],dims_mappings:[-1,-1], partial(0,SUM) to mesh_shape:[2],dims_mappings:[-1,-1]
// (on one line), then "N reshard(s) would be inserted".
std::string describeInsertedReshards(const PartitionResult& result, const ValueNames& names,
                                     const SourceFile& source, DistGeneration generation);

}  // namespace reshardctl
