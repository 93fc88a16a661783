// What `apply --check` reports: one finding per reshard the pass inserted,
// at the op that needed it, naming the operand by the name it has in the
// input. Findings are warnings named `reshard-needed`, rendered like every
// other diagnostic (ir/diagnostics.h):
//   seed.ir:11:5: warning: pd_op.relu operand 0 (%8): would insert dist_op.reshard
//     from mesh_shape:[2],dims_mappings:[-1,-1], partial(0,SUM) to mesh_shape:[2],dims_mappings:[-1,-1]
// (on one line).
#pragma once

#include <functional>

#include <string>
#include <vector>

#include "ir/diagnostics.h"
#include "passes/partition_pass.h"
#include "syntax/printer.h"

namespace reshardctl {

inline constexpr const char* kReshardNeeded = "reshard-needed";
inline constexpr const char* kReshardNeededSummary =
    "apply --check: the partition pass would insert a dist_op.reshard for this operand";

struct NeededReshard {
  const Operation* op = nullptr;  // the op whose operand needs it
  size_t operand = 0;
  // For a tensor-list operand: which element (the pass reshards it and
  // builds a new builtin.combine before the op); -1 otherwise.
  int64_t element = -1;
  std::string value;  // the operand's name in the input, "%8"
  TensorDistAttr from;
  TensorDistAttr to;
};

// `names` must number the program as it was before the pass (so "%8" is the
// input's %8). In insertion order.
std::vector<NeededReshard> neededReshards(const PartitionResult& result, const ValueNames& names);
// The same, one at a time (--check writes each finding as it goes).
void forEachNeededReshard(const PartitionResult& result, const ValueNames& names,
                          const std::function<void(const NeededReshard&)>& take);

// The finding for one, its distributions written in the input's generation.
Diagnostic neededReshardDiagnostic(const NeededReshard& needed, DistGeneration generation);

// "2 reshards would be inserted"
std::string neededReshardsSummary(size_t count);

}  // namespace reshardctl
