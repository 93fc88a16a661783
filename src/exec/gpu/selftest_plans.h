// The plans gpu_selftest runs on the NCCL backend, in a header of their own so
// that a host test (exec/step_program_test.cpp) runs the very same plans
// through the host emulation of the GPU path first: a plan built wrong fails
// there, without a GPU, not on the GPU machine.
#pragma once

#include <optional>
#include <vector>

#include "reshard/cost_model.h"
#include "reshard/plan.h"
#include "reshard/planner.h"

namespace reshardctl::gpu {

// On a 1-rank mesh the planner needs no steps, so the steps are built by hand:
// each primitive on a group of one, through real 1-rank NCCL communicators.
// On one rank the packs and unpacks are in place and the local steps keep the
// whole piece, so the kernels these launch are the ANY/ALL and AVG fix-ups;
// the plans that end the list move a tensor between two meshes of the one
// process (send_recv to itself), a copy kernel.
inline std::vector<Plan> singleRankPlans() {
  const ProcessMesh mesh{{1}, {0}, true};
  auto layout = [&](Placement placement) { return Layout{mesh, {placement}}; };
  struct Spec {
    StepKind kind;
    Placement from, to;
    std::optional<ReduceType> reduce;
    int64_t tensorDim, fromTensorDim;
  };
  const std::vector<Spec> specs = {
      {StepKind::AllReduce, Placement::partial(ReduceType::Sum), Placement::replicate(), ReduceType::Sum, -1, -1},
      {StepKind::AllReduce, Placement::partial(ReduceType::Avg), Placement::replicate(), ReduceType::Avg, -1, -1},
      {StepKind::AllReduce, Placement::partial(ReduceType::Max), Placement::replicate(), ReduceType::Max, -1, -1},
      {StepKind::AllReduce, Placement::partial(ReduceType::Any), Placement::replicate(), ReduceType::Any, -1, -1},
      {StepKind::ReduceScatter, Placement::partial(ReduceType::Sum), Placement::shard(0), ReduceType::Sum, 0, -1},
      {StepKind::ReduceScatter, Placement::partial(ReduceType::Min), Placement::shard(1), ReduceType::Min, 1, -1},
      {StepKind::AllGather, Placement::shard(0), Placement::replicate(), std::nullopt, 0, -1},
      {StepKind::AllGather, Placement::shard(1), Placement::replicate(), std::nullopt, 1, -1},
      {StepKind::AllToAll, Placement::shard(0), Placement::shard(1), std::nullopt, 1, 0},
      {StepKind::Slice, Placement::replicate(), Placement::shard(1), std::nullopt, 1, -1},
      {StepKind::PartialInit, Placement::replicate(), Placement::partial(ReduceType::Max), ReduceType::Max, -1, -1},
      {StepKind::PartialInit, Placement::shard(0), Placement::partial(ReduceType::Sum), ReduceType::Sum, -1, 0},
  };
  const std::vector<std::vector<int64_t>> shapes = {{8, 6}, {7, 5}, {1, 1}, {1031, 67}};
  const std::vector<DType> dtypes = {DType::F32, DType::BF16, DType::F16, DType::F64, DType::I32, DType::I64, DType::Bool};
  std::vector<Plan> plans;
  for (const Spec& spec : specs)
    for (const auto& shape : shapes)
      for (const DType dtype : dtypes) {
        Step step;
        step.kind = spec.kind;
        step.meshDim = 0;
        step.reduce = spec.reduce;
        step.tensorDim = spec.tensorDim;
        step.fromTensorDim = spec.fromTensorDim;
        step.groups = {{0}};
        step.from = layout(spec.from);
        step.to = layout(spec.to);
        Plan plan;
        plan.src = step.from;
        plan.dst = step.to;
        plan.shape = shape;
        plan.dtype = dtype;
        plan.steps = {step};
        plans.push_back(plan);
      }
  const ProcessMesh square{{1, 1}, {0}, true};
  for (const auto& shape : shapes)
    for (const DType dtype : dtypes)
      plans.push_back(planMinCost(ReshardRequest{shape, dtype, TensorDistAttr{mesh, {-1, -1}, {}, {}},
                                                 TensorDistAttr{square, {0, 1}, {}, {}}},
                                  CostModel{}));
  return plans;
}

// Planned reshards on a 2-rank mesh: every kind of step, even and uneven.
inline std::vector<Plan> twoRankPlans() {
  const ProcessMesh mesh{{2}, {0, 1}, true};
  struct Case {
    std::vector<int64_t> srcMap, dstMap;
    std::vector<PartialDim> srcPartial, dstPartial;
  };
  const std::vector<Case> cases = {
      {{-1, -1}, {-1, -1}, {{0, ReduceType::Sum}}, {}},  {{-1, -1}, {-1, -1}, {{0, ReduceType::Avg}}, {}},
      {{-1, -1}, {0, -1}, {{0, ReduceType::Sum}}, {}},   {{0, -1}, {-1, -1}, {}, {}},
      {{-1, 0}, {-1, -1}, {}, {}},                       {{0, -1}, {-1, 0}, {}, {}},
      {{-1, -1}, {-1, 0}, {}, {}},                       {{-1, -1}, {-1, -1}, {}, {{0, ReduceType::Max}}},
      // scale where floating point (multiply and divide kernels), collectives for I64 and Bool
      {{-1, -1}, {-1, -1}, {{0, ReduceType::Sum}}, {{0, ReduceType::Avg}}},
      {{-1, -1}, {-1, -1}, {{0, ReduceType::Avg}}, {{0, ReduceType::Sum}}},
  };
  const std::vector<std::vector<int64_t>> shapes = {{8, 6}, {7, 5}, {1031, 67}};
  const std::vector<DType> dtypes = {DType::F32, DType::BF16, DType::I64, DType::Bool};
  std::vector<Plan> plans;
  for (const Case& c : cases)
    for (const auto& shape : shapes)
      for (const DType dtype : dtypes)
        plans.push_back(planMinCost(
            ReshardRequest{shape, dtype, TensorDistAttr{mesh, c.srcMap, c.srcPartial, {}}, TensorDistAttr{mesh, c.dstMap, c.dstPartial, {}}},
            CostModel{}));
  return plans;
}

}  // namespace reshardctl::gpu
