#include "interp/reshard_runner.h"

#include <fmt/format.h>

#include "exec/piece.h"
#include "reshard/local_box.h"
#include "reshard/mesh_coords.h"
#include "reshard/planner.h"

namespace reshardctl {

const Plan& ReshardRunner::planFor(const Shape& shape, const TensorDistAttr& src, const TensorDistAttr& dst) {
  std::string key = fmt::format("{}|{}|{}", shapeText(shape), layoutText(toLayout(src)), layoutText(toLayout(dst)));
  auto found = plans_.find(key);
  if (found != plans_.end()) return found->second;
  const ReshardRequest request{shape, DType::F64, src, dst};
  return plans_.emplace(std::move(key), planMinCost(request, costs_)).first->second;
}

std::map<int64_t, Tensor> ReshardRunner::move(const Shape& shape, const TensorDistAttr& src,
                                              const TensorDistAttr& dst,
                                              const std::map<int64_t, const Tensor*>& pieces) {
  const Plan& plan = planFor(shape, src, dst);
  DistTensor tensor{shape, DType::F64, plan.src, {}};
  for (int64_t position = 0; position < plan.src.mesh.size(); ++position) {
    const int64_t id = processIdAt(plan.src.mesh, position);
    auto found = pieces.find(id);
    if (found == pieces.end()) throw ExecutionError(fmt::format("rank {} holds no piece to send", id));
    const Box box = localBox(shape, plan.src, meshCoord(plan.src.mesh, position));
    if (found->second->numel() != box.volume() || found->second->rank() != box.rank())
      throw ExecutionError(fmt::format("rank {} holds a {} piece where the source layout gives it {} elements", id,
                                       shapeText(found->second->shape), box.volume()));
    tensor.pieces[id] = Piece{box, found->second->data};
  }
  backend_.execute(plan, tensor);
  std::map<int64_t, Tensor> moved;
  for (int64_t position = 0; position < plan.dst.mesh.size(); ++position) {
    const int64_t id = processIdAt(plan.dst.mesh, position);
    auto found = tensor.pieces.find(id);
    if (found == tensor.pieces.end()) throw ExecutionError(fmt::format("rank {} received no piece", id));
    Tensor piece;
    for (size_t d = 0; d < found->second.box.rank(); ++d) piece.shape.push_back(found->second.box.extent(d));
    piece.data = std::move(found->second.values);
    if (piece.numel() != numelOf(piece.shape)) throw ExecutionError(fmt::format("rank {} received a malformed piece", id));
    moved[id] = std::move(piece);
  }
  return moved;
}

}  // namespace reshardctl
