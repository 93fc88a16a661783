// Building the ops a reshard function emits, as Paddle's builders make them:
// the op's own attributes, plus `op_dist_attr` (create_op_dist_attribute, with
// the reshard's gen-D chunk_id), the reshard's `op_role` (pir_op_role_guard in
// reshard_op_pass copies it) and `stop_gradient` (PassStopGradientsDefaultly),
// written sorted as IrPrinter::PrintAttributeMap prints them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/ir.h"
#include "ir/rewriter.h"
#include "lower/kept_dist_attrs.h"

namespace reshardctl {

using AttributeList = std::vector<std::pair<std::string_view, std::string>>;

// Whose reshard functions' spelling of the collectives to write
// (docs/lowering.md, "Paddle releases"): the ops are the same moves.
enum class PaddleRelease {
  V3_0,      // pd_op.all_reduce (reduce_type), pd_op.all_gather, pd_op.reduce_scatter
  V3_0Beta,  // pd_op.c_allreduce_sum_, pd_op.c_allgather, pd_op.c_reducescatter (use_calc_stream, ...)
};

// Paddle 3.0-beta's spellings (reshard_funcs as of mid 2024, docs/lowering.md).
inline constexpr std::string_view kCAllReduceSumOp = "pd_op.c_allreduce_sum_";
inline constexpr std::string_view kCAllGatherOp = "pd_op.c_allgather";
inline constexpr std::string_view kCReduceScatterOp = "pd_op.c_reducescatter";
// sub_to_global_mesh's broadcast, in both releases.
inline constexpr std::string_view kCBroadcastOp = "pd_op.c_broadcast";

// Paddle's DataType name of a tensor type's element: `(pd_op.DataType)float32`.
std::string dataType(const Type* type);

// Each release's name of the all_gather and reduce_scatter ops.
std::string_view allGatherName(PaddleRelease release);
std::string_view reduceScatterName(PaddleRelease release);

// The attributes of a gather or scatter over `nranks` on `ring`: Paddle
// 3.0-beta's c_allgather / c_reducescatter also print the use_calc_stream
// its functions pass (True: s_to_r's `_C_ops.c_allgather(value, group.id,
// num_of_process, True)`, p_to_s's `_C_ops.c_reducescatter(...)` alike).
AttributeList gatherAttributes(PaddleRelease release, int64_t nranks, int64_t ring);

// Whether `name` is a communication op a reshard function emits, in either
// release's spelling, in place (a trailing '_') or not: a program holding
// one was lowered already.
bool isLoweredCommunication(std::string_view name);

// What a function's result value is: its type and its distribution (for an
// N-D reshard, the N-D layout reached so far; the op's entries are 1-D).
struct Target {
  const Type* type = nullptr;
  TensorDistAttr dist;
};

struct NewOp {
  std::string_view name;
  AttributeList attributes;  // the op's own, values as printed
  std::vector<Value*> operands;
  std::vector<const Type*> resultTypes;
  // The results' distributions (dist types only), one per result.
  std::vector<TensorDistAttr> resultDists;
  std::optional<OpDistAttr> dist;  // op_dist_attr; nullopt: none (the constant ops)
  bool stopGradient = true;
};

class LoweredOps {
 public:
  // Ops go before `reshard`, whose op_role and chunk_id they copy, and whose
  // place in the input they take (sourceLocation): a check of the lowered
  // program (schedule) points at the reshard a call came from: `location`,
  // the reshard's sourceLocation. Their dist attrs are kept through `kept`,
  // shared with the program's other reshards.
  LoweredOps(Rewriter& rewriter, const Operation& reshard, KeptDistAttrs& kept, size_t location);

  Operation* create(NewOp op);
  Value* createOne(NewOp op) { return create(std::move(op))->result(0); }

  // `builtin.tensor<DIMSxDTYPE>`, the type of a constant op's result.
  const Type* denseType(const std::vector<int64_t>& dims, std::string_view dtype);
  // A pd_dist type of `dims` and `dtype` laid out as `dist`.
  const Type* distType(const std::vector<int64_t>& dims, std::string_view dtype, const TensorDistAttr& dist);
  // op_dist_attr of mesh `mesh`, one operand entry per `operands`, one result entry per `results`.
  OpDistAttr opDist(const ProcessMesh& mesh, std::vector<TensorDistAttr> operands,
                    std::vector<TensorDistAttr> results);

  // The constants Paddle's Python APIs make for their int and int-array
  // arguments: pd_op.full (split_with_num's and concat's axis) and
  // pd_op.full_int_array (slice's starts and ends).
  Value* fullInt32(int64_t value);
  Value* fullIntArray(const std::vector<int64_t>& values);

  // global_to_sub_mesh's relabel: `value` (its defining op's result) takes
  // `out`, and that op's result entry says so. False when the value has no
  // defining op with op_dist_attr.
  bool relabel(Value* value, const Target& out);

  Program& program() { return rewriter_.program(); }
  bool stopGradient(const Value* value) const;  // pir::Value's stop_gradient

 private:
  Rewriter& rewriter_;
  KeptDistAttrs& kept_;
  std::string_view opRole_;
  std::optional<int64_t> chunkId_;
  uint32_t location_ = 0;
};

// Where to report an op: its line, or for one a pass made (which has none)
// the first line reached through its uses (the op it was made for).
size_t sourceLocation(const Operation& op);

// `(Int32)N`, `[(Int64)a,(Int64)b]`: Paddle's printer's attribute values.
std::string int32Text(int64_t value);
std::string int64ArrayText(const std::vector<int64_t>& values);
std::string int32ArrayText(const std::vector<int64_t>& values);
std::string boolArrayText(bool value);

}  // namespace reshardctl
