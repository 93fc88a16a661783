// --lowering=plan (docs/lowering.md): ReshardFunctions::planned, the
// planner's min-cost plan lowered step by step into the op vocabulary of
// Paddle's functions. Each collective step of a plan is a 1-D move on the
// groups along its mesh dims, so it is lowered by the 1-D function of that
// move on the group holding this rank, as NdMeshReshardFunction lowers its
// moves (reshard_functions.cpp); a send_recv step is same_status. Every
// group of a step is made before this rank's is used, so ring ids agree on
// every rank.
#include <algorithm>

#include <fmt/format.h>

#include "lower/reshard_functions.h"
#include "reshard/mesh_coords.h"
#include "reshard/planner.h"

namespace reshardctl {

namespace {

const std::vector<int64_t>* groupHolding(const Step& step, int64_t rank) {
  for (const std::vector<int64_t>& group : step.groups)
    if (std::find(group.begin(), group.end(), rank) != group.end()) return &group;
  return nullptr;
}

// A scale step (P(SUM) <-> P(AVG), reshard/plan.h) as paddle.scale builds it
// in PIR: the factor a pd_op.full operand, bias 0 (scale_kernel). The factor is
// a power of two or its inverse, written in full so that it reads back exact.
Value* scaleOp(LoweredOps& ops, const Step& step, const TensorDistAttr& src, const TensorDistAttr& dst, Value* value,
               const Target& out) {
  NewOp factor;
  factor.name = "pd_op.full";
  factor.attributes = {{"dtype", "(pd_op.DataType)float32"},
                       {"place", "(pd_op.Place)Place(cpu)"},
                       {"shape", "(pd_op.IntArray)[1]"},
                       {"value", fmt::format("(Float){}", step.scale)}};
  factor.resultTypes = {ops.denseType({1}, "f32")};
  Value* scale = ops.createOne(std::move(factor));
  NewOp op{"pd_op.scale",          {{"bias", "(Float)0"}, {"bias_after_scale", "true"}},
           {value, scale},         {out.type},
           {out.dist},             ops.opDist(dst.mesh, {src}, {dst}),
           ops.stopGradient(value)};
  return ops.createOne(std::move(op));
}

// pd_op.all_gather stacks equal pieces (Paddle's s_to_r refuses an uneven
// split the same way): a plan's all_gather of an uneven dim has no lowering.
void requireEvenGather(size_t index, const Step& step, const std::vector<int64_t>& group,
                       const std::vector<int64_t>& dims) {
  const int64_t size = dims[static_cast<size_t>(step.tensorDim)];
  const auto ranks = static_cast<int64_t>(group.size());
  if (size % ranks == 0) return;
  throw PaddleRefusal(fmt::format("step {} of the plan, an all_gather of dim {} over ranks [{}], gathers uneven "
                                  "pieces (size {} over {} ranks), and pd_op.all_gather only stacks equal ones",
                                  index + 1, step.tensorDim, fmt::join(group, ","), size, ranks));
}

}  // namespace

Value* ReshardFunctions::reduceThenSlice(const Step& step, const std::vector<int64_t>& group,
                                         const TensorDistAttr& current, Value* value, const Target& out) {
  const size_t rank = value->type->dims.size();
  TensorDistAttr reduced = current;
  std::erase_if(reduced.partials, [&](const PartialDim& p) { return p.meshDim == step.meshDim; });
  const Target whole{ops_.distType(value->type->dims, std::string(value->type->dtype), reduced), reduced};
  value = pToR(groupLayout(group, rank, -1, step.reduce), groupLayout(group, rank, -1), value, whole);
  return rToS(groupLayout(group, rank, -1), groupLayout(group, rank, step.tensorDim), value, out);
}

Value* ReshardFunctions::planned(const TensorDistAttr& src, const TensorDistAttr& dst, Value* value,
                                 const Target& out) {
  const std::vector<int64_t>& dims = value->type->dims;
  const std::string dtype(value->type->dtype);
  Plan plan;
  try {
    plan = planMinCost(ReshardRequest{dims, parseDType(dtype).value_or(DType::F32), src, dst}, *costs_);
  } catch (const std::exception& e) {  // PlanError, LayoutError
    throw PaddleRefusal(fmt::format("the planner has no plan for it: {}", e.what()));
  }
  TensorDistAttr current = src;
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    const Step& step = plan.steps[k];
    const bool last = k + 1 == plan.steps.size();
    const TensorDistAttr next = last ? dst : toDistAttr(step.to, static_cast<int64_t>(dims.size()));
    const Target target = last ? out : Target{ops_.distType(dims, dtype, next), next};
    if (step.kind == StepKind::SendRecv) {
      if (!(step.from.placements == step.to.placements) || step.from.mesh.shape != step.to.mesh.shape)
        throw PaddleRefusal(fmt::format("the plan's send_recv from {} to {} has no same_status form",
                                        layoutText(step.from), layoutText(step.to)));
      value = sameStatus(current, next, value, target);
      current = next;
      continue;
    }
    if (step.kind == StepKind::Slice && step.tensorDim < 0) {
      // Several mesh dims cut at once (reshard/transition.h's permutation with
      // nothing to send): each rank slices its own piece, as Paddle's N-D
      // lowering of R to those splits does, one local slice per mesh dim.
      // Only a cut of unreduced pieces on one mesh is such a lowering.
      if (!current.partials.empty() || current.mesh.shape != next.mesh.shape ||
          current.mesh.processIds != next.mesh.processIds)
        throw PaddleRefusal(fmt::format("the plan's local cut from {} to {} has no reshard function's form",
                                        layoutText(step.from), layoutText(step.to)));
      value = ndMesh(current, next, value, target);
      current = next;
      continue;
    }
    for (const std::vector<int64_t>& group : step.groups) {
      std::vector<int64_t> sorted = group;
      std::sort(sorted.begin(), sorted.end());
      groups_.ringOf(sorted);
    }
    const std::vector<int64_t>* group = groupHolding(step, rank_);
    if (group == nullptr) {  // this rank takes no part: pruned with the ops of other ranks
      value = fakeReshard(current, next, value, target);
      current = next;
      continue;
    }
    const size_t rank = dims.size();
    const std::optional<ReduceType> reduce = step.reduce;
    switch (step.kind) {
      case StepKind::AllReduce:
        value = pToR(groupLayout(*group, rank, -1, reduce), groupLayout(*group, rank, -1), value, target);
        break;
      case StepKind::ReduceScatter:
        if (reduce.value_or(ReduceType::Sum) == ReduceType::Sum) {
          value = pToS(groupLayout(*group, rank, -1, reduce), groupLayout(*group, rank, step.tensorDim), value, target);
          break;
        }
        // reduce_scatter sums only: another reduction is an all_reduce, then this rank's slice.
        value = reduceThenSlice(step, *group, current, value, target);
        break;
      case StepKind::AllGather:
        requireEvenGather(k, step, *group, dims);
        value = sToR(groupLayout(*group, rank, step.tensorDim), groupLayout(*group, rank, -1), value, target);
        break;
      case StepKind::AllToAll:
        value = sToS(groupLayout(*group, rank, step.fromTensorDim), groupLayout(*group, rank, step.tensorDim), value, target);
        break;
      case StepKind::Slice:
        value = rToS(groupLayout(*group, rank, -1), groupLayout(*group, rank, step.tensorDim), value, target);
        break;
      case StepKind::PartialInit:
        if (step.fromTensorDim != -1)
          throw PaddleRefusal("the plan makes a partial value from a shard, which no reshard function's ops express");
        value = rToP(groupLayout(*group, rank, -1), groupLayout(*group, rank, -1, reduce), value, target, group->front());
        break;
      case StepKind::Scale: {
        const ReduceType was = step.from.placements[static_cast<size_t>(step.meshDim)].reduce;
        value = scaleOp(ops_, step, groupLayout(*group, rank, -1, was), groupLayout(*group, rank, -1, reduce), value,
                        target);
        break;
      }
      case StepKind::SendRecv: break;
    }
    current = next;
  }
  return value;
}

}  // namespace reshardctl
