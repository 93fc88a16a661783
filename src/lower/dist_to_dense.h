// paddle/fluid/pir/transforms/.../dist_to_dense_pass.cc (apply_dist2dense_pass)
// for one rank: every pd_dist value takes its local builtin.tensor type
// (CastToLocalType), op_dist_attr is erased (gen D and later keep its
// chunk_id as `chunk_id:(Int64)N`), pd_op.data's `shape` becomes local. Then
// pir_pass.py remove_unuseful_comm_op_pass: all_gather and reduce_scatter of
// one rank, and all_reduce SUM/MAX on a 1-rank ring, are replaced by their input.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ir/ir.h"
#include "lower/process_groups.h"

namespace reshardctl {

struct DenseResult {
  size_t retyped = 0;
  size_t commRemoved = 0;
};

DenseResult distToDense(Program& program, int64_t rank, const ProcessGroups& groups);

}  // namespace reshardctl
