#include "interp/reshard_runner.h"

#include <algorithm>
#include <new>

#include <fmt/format.h>

#include "exec/multiprocess/multi_process.h"
#include "exec/multiprocess/process_group.h"
#include "exec/piece.h"
#include "reshard/local_box.h"
#include "reshard/mesh_coords.h"
#include "reshard/planner.h"
#include "support/op_names.h"

namespace reshardctl {

const Plan& ReshardRunner::planFor(const Shape& shape, DType dtype, const TensorDistAttr& src,
                                   const TensorDistAttr& dst) {
  std::string key = fmt::format("{}|{}|{}|{}", shapeText(shape), dtypeName(dtype), layoutText(toLayout(src)),
                                layoutText(toLayout(dst)));
  auto found = plans_.find(key);
  if (found != plans_.end()) return found->second;
  const ReshardRequest request{shape, dtype, src, dst};
  return plans_.emplace(std::move(key), planMinCost(request, costs_)).first->second;
}

std::optional<ReshardRunner::Refusal> ReshardRunner::weigh(const Program& program, int64_t dynamicDim,
                                                           uint64_t processes, uint64_t heldBytes,
                                                           const FootprintLimits& limits) {
  std::optional<Refusal> refusal;
  walkOps(*program.body(), [&](const Operation* op) {
    if (refusal || op->name() != kReshardOp || op->numOperands() != 1 || op->numResults() != 1) return;
    const Value* input = op->operandValue(0);
    const Value* output = op->result(0);
    if (input == nullptr || input->type == nullptr || !input->type->isTensor() || !input->dist || !output->dist)
      return;
    Shape shape = input->type->dims;
    for (int64_t& dim : shape)
      if (dim < 0) dim = dynamicDim;
    const bool boolValues = parseDType(input->type->dtype) == DType::Bool;
    try {
      const Plan& plan = planFor(shape, boolValues ? DType::Bool : DType::F64, *input->dist, *output->dist);
      const PlanFootprint footprint = planFootprint(plan);
      const uint64_t share = std::max<uint64_t>(processes, 1);
      const uint64_t bytes = std::min<uint64_t>(UINT64_MAX / 2, heldBytes) + footprint.peakBytes / share;
      std::string problem = footprintProblem(footprint, plan.steps.size(), bytes, footprint.work, limits);
      if (!problem.empty()) refusal = Refusal{op, std::move(problem)};
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception&) {  // LayoutError, PlanError: the reshard says so where it runs
    }
  });
  return refusal;
}

bool ReshardRunner::holds(int64_t id) const { return group_ == nullptr || ownerOf_(id) == group_->rank(); }

void ReshardRunner::agree(std::optional<std::pair<int64_t, std::string>> mine) {
  if (group_ == nullptr) {
    if (mine) throw ExecutionError(mine->second);
    return;
  }
  const std::string lowest =
      lowestPositionedProblem(group_->allGather(mine ? positionedProblem(mine->first, mine->second) : ""));
  if (!lowest.empty()) throw ExecutionError(lowest);
}

std::map<int64_t, Tensor> ReshardRunner::move(const Shape& shape, const TensorDistAttr& src,
                                              const TensorDistAttr& dst,
                                              const std::map<int64_t, const Tensor*>& pieces, bool boolValues) {
  const DType dtype = boolValues ? DType::Bool : DType::F64;
  const Plan& plan = planFor(shape, dtype, src, dst);
  DistTensor tensor{shape, dtype, plan.src, {}};
  std::optional<std::pair<int64_t, std::string>> problem;
  for (int64_t position = 0; position < plan.src.mesh.size() && !problem; ++position) {
    const int64_t id = processIdAt(plan.src.mesh, position);
    if (!holds(id)) continue;
    auto found = pieces.find(id);
    const Box box = localBox(shape, plan.src, meshCoord(plan.src.mesh, position));
    if (found == pieces.end())
      problem = {position, fmt::format("rank {} holds no piece to send", id)};
    else if (found->second->numel() != box.volume() || found->second->rank() != box.rank())
      problem = {position, fmt::format("rank {} holds a {} piece where the source layout gives it {} elements", id,
                                       shapeText(found->second->shape), box.volume())};
    else
      tensor.pieces[id] = Piece{box, found->second->data};
  }
  agree(std::move(problem));
  if (group_ != nullptr) executeShared(plan, tensor, *group_, ownerOf_, &receivedBytes_);
  else backend_.execute(plan, tensor);
  std::map<int64_t, Tensor> moved;
  for (int64_t position = 0; position < plan.dst.mesh.size() && !problem; ++position) {
    const int64_t id = processIdAt(plan.dst.mesh, position);
    if (!holds(id)) continue;
    auto found = tensor.pieces.find(id);
    if (found == tensor.pieces.end()) {
      problem = {position, fmt::format("rank {} received no piece", id)};
      break;
    }
    Tensor piece;
    for (size_t d = 0; d < found->second.box.rank(); ++d) piece.shape.push_back(found->second.box.extent(d));
    piece.data = std::move(found->second.values);
    if (piece.numel() != numelOf(piece.shape))
      problem = {position, fmt::format("rank {} received a malformed piece", id)};
    else
      moved[id] = std::move(piece);
  }
  agree(std::move(problem));
  return moved;
}

}  // namespace reshardctl
