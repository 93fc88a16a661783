// The names of the ops the tool treats by name, spelled once. (Kernel table
// rows in interp/kernels/ name their own ops: those are data, one row each.)
// They are spellings only: what an op means stays with the stage that uses it.
#pragma once

#include <string_view>

namespace reshardctl {

inline constexpr std::string_view kReshardOp = "dist_op.reshard";  // what the partition pass inserts
inline constexpr std::string_view kCombineOp = "builtin.combine";  // builds a tensor list
inline constexpr std::string_view kYieldOp = "cf.yield";           // ends a region, hands back its values
inline constexpr std::string_view kIfOp = "pd_op.if";
inline constexpr std::string_view kWhileOp = "pd_op.while";
inline constexpr std::string_view kFullOp = "pd_op.full";  // a constant: schedule reads a pd_op.if condition from it

}  // namespace reshardctl
