// Paddle's reshard functions (python/paddle/distributed/auto_parallel/static/
// reshard_funcs/*.py), op for op, for one rank: reshard_op_pass calls
// choose_reshard_func(src, dst).reshard(...) at each dist_op.reshard, and the
// functions read paddle.distributed.get_rank(). Registration order
// (reshard_func_register.py, register_reshard_funcs) decides which fits first.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "lower/lowered_ops.h"
#include "reshard/cost_model.h"
#include "reshard/local_box.h"
#include "reshard/plan.h"
#include "lower/process_groups.h"

namespace reshardctl {

// Paddle refuses the reshard (it raises or asserts): the message says how.
struct PaddleRefusal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Where Paddle emits a program that cannot run as meant, without failing.
struct LoweringWarning {
  std::string message;
};

class ReshardFunctions {
 public:
  ReshardFunctions(LoweredOps& ops, ProcessGroups& groups, int64_t rank, std::vector<LoweringWarning>& warnings)
      : ops_(ops), groups_(groups), rank_(rank), warnings_(warnings) {}

  // The value that replaces the reshard's result on this rank. Throws
  // PaddleRefusal where Paddle has no function or its function raises.
  Value* reshard(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value, const Target& out);

  // --lowering=plan: lower the planner's min-cost plan (reshard/planner.h)
  // under `costs` instead of Paddle's function, each step by the function of
  // its 1-D move on the group holding this rank (planned_reshard.cpp).
  void usePlans(const CostModel* costs) { costs_ = costs; }
  // The release whose spelling of the collectives to write (V3_0 unless set).
  void spellAs(PaddleRelease release) { release_ = release; }

 private:
  Value* pToR(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value, const Target& out);
  Value* pToS(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value, const Target& out);
  Value* rToS(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value, const Target& out);
  // `keeper`: the rank that keeps a SUM's value (Paddle's: global rank 0).
  Value* rToP(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value, const Target& out,
              int64_t keeper = 0);
  Value* planned(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value, const Target& out);
  Value* reduceThenSlice(const Step& step, const std::vector<int64_t>& group, const TensorDistAttr& current,
                         Value* value, const Target& out);
  Value* sToR(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value, const Target& out);
  Value* sToS(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value, const Target& out);
  Value* reshape(Value* value, const std::vector<int64_t>& shape, const TensorDistAttr& dist);
  Value* reshape(Value* value, const std::vector<int64_t>& shape, const Target& out);
  Value* transpose(Value* value, const std::vector<int64_t>& perm, const TensorDistAttr& dist);
  Value* sameStatus(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value, const Target& out);
  void sendV2(Value* value, int64_t source, int64_t destination, OpDistAttr dist);
  NewOp recvV2(int64_t source, int64_t destination, const Type* type, const std::vector<int64_t>& localDims);
  NewOp sliceOp(Value* value, const std::vector<int64_t>& axes, const std::vector<int64_t>& starts,
                const std::vector<int64_t>& ends);
  // A plan's send_recv step: each rank sends and receives the parts of the
  // pairs step.groups lists (planned_reshard.cpp).
  Value* pointToPoint(const Step& step, const TensorDistAttr& current, const TensorDistAttr& next, Value* value,
                      const Target& out);
  Value* joinParts(std::vector<std::pair<Box, Value*>> parts, const Box& wanted, const TensorDistAttr& next,
                   const Target& out);
  Value* stackParts(std::vector<std::pair<Box, Value*>> parts, const Box& box, const Type* type,
                    const TensorDistAttr& next, bool whole);
  // builtin.combine + pd_op.concat of `values` along `axis`.
  Value* concat(const std::vector<Value*>& values, int64_t axis, const Type* type, const TensorDistAttr& next,
                bool whole);
  // The box `part` of `value`, which holds `held`: a pd_op.slice, or the value itself.
  Value* cutOut(Value* value, const Box& held, const Box& part, const Type* type, OpDistAttr dist,
                const TensorDistAttr* resultDist = nullptr);
  // A plan's partial made where r_to_p has no form for it: of a shard, or of
  // a type r_to_p refuses (planned_collectives.cpp).
  Value* partialInit(const Step& step, int64_t keeper, const TensorDistAttr& current, const TensorDistAttr& next,
                     Value* value, const Target& out);
  // The parts a send_recv that reduces on arrival brings, reduced box by box (planned_collectives.cpp).
  std::vector<std::pair<Box, Value*>> reduceArrivals(ReduceType reduce, std::vector<std::pair<Box, Value*>> parts,
                                                     const Box& wanted, const TensorDistAttr& next, const Target& out);
  // A plan's local cut of several mesh dims at once (planned_reshard.cpp).
  Value* localCut(const Step& step, const TensorDistAttr& current, const TensorDistAttr& next, Value* value,
                  const Target& out);
  // A plan's all_gather / reduce_scatter over a flattened group of several
  // mesh dims, or an all_gather of uneven pieces (planned_collectives.cpp).
  Value* flattenedGather(const Step& step, const std::vector<int64_t>& group, const TensorDistAttr& current,
                         const TensorDistAttr& next, Value* value, const Target& out);
  Value* padPiece(Value* value, std::vector<int64_t> extents, const std::vector<int64_t>& padded,
                  const TensorDistAttr& current);
  Value* flattenedScatter(const Step& step, const std::vector<int64_t>& group, const TensorDistAttr& current,
                          const TensorDistAttr& next, Value* value, const Target& out);
  Value* crossMesh(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value, const Target& out,
                   bool onlyOnDestination);
  Value* ndMesh(TensorDistAttr src, const TensorDistAttr& dst, Value* value, const Target& out);
  Value* globalToSub(TensorDistAttr src, const TensorDistAttr& dst, Value* value, const Target& out);
  Value* subToGlobal(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value, const Target& out);
  Value* fakeReshard(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value, const Target& out);
  Value* shareData(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value, const Target& out);

  // get_1D_sub_process_mesh: the 1-D group along `meshDim` holding this rank
  // (or the mesh's first process, as Paddle's pipeline hack does).
  ProcessMesh subMesh(const ProcessMesh& mesh, int64_t meshDim) const;
  // split_mesh + new_process_group: every group along `meshDim`, made in order.
  void makeGroupsAlong(const ProcessMesh& mesh, int64_t meshDim);
  bool holdsRank(const ProcessMesh& mesh) const;

  LoweredOps& ops_;
  ProcessGroups& groups_;
  int64_t rank_;
  std::vector<LoweringWarning>& warnings_;
  const CostModel* costs_ = nullptr;
  PaddleRelease release_ = PaddleRelease::V3_0;
};

}  // namespace reshardctl
