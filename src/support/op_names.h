// The names of the ops the tool treats by name, spelled once. (Kernel table
// rows in interp/kernels/ name their own ops: those are data, one row each.)
// They are spellings only: what an op means stays with the stage that uses it.
#pragma once

#include <string_view>

namespace reshardctl {

inline constexpr std::string_view kReshardOp = "dist_op.reshard";  // what the partition pass inserts
inline constexpr std::string_view kShardTensorOp = "dist_op.shard_tensor";  // a dense value given a layout, before mix2dist
inline constexpr std::string_view kCombineOp = "builtin.combine";  // builds a tensor list
inline constexpr std::string_view kYieldOp = "cf.yield";           // ends a region, hands back its values
inline constexpr std::string_view kIfOp = "pd_op.if";
inline constexpr std::string_view kWhileOp = "pd_op.while";
// A control-flow backward's stacks (paddle/pir/src/dialect/control_flow/ir/cf_op.cc):
// stack_create makes one (its stack, inlet and outlet), tuple_push(inlet,
// values...) pushes a tuple, tuple_pop(outlet) pops the last one pushed.
inline constexpr std::string_view kStackCreateOp = "cf.stack_create";
inline constexpr std::string_view kTuplePushOp = "cf.tuple_push";
inline constexpr std::string_view kTuplePopOp = "cf.tuple_pop";
inline constexpr std::string_view kFullOp = "pd_op.full";  // a constant: schedule reads a pd_op.if condition from it

// The communication ops Paddle's reshard functions emit (lower/): a program
// holding them was lowered already.
inline constexpr std::string_view kAllReduceOp = "pd_op.all_reduce";
inline constexpr std::string_view kAllGatherOp = "pd_op.all_gather";
inline constexpr std::string_view kReduceScatterOp = "pd_op.reduce_scatter";
inline constexpr std::string_view kAllToAllOp = "pd_op.all_to_all";
inline constexpr std::string_view kSendOp = "pd_op.send_v2";
inline constexpr std::string_view kRecvOp = "pd_op.recv_v2";
inline constexpr std::string_view kCommunicationOps[] = {kAllReduceOp, kAllGatherOp, kReduceScatterOp,
                                                         kAllToAllOp,  kSendOp,      kRecvOp};

}  // namespace reshardctl
