#include "reshard/reduce_on_arrival.h"

#include <algorithm>
#include <map>

#include "reshard/local_box.h"
#include "reshard/mesh_coords.h"

namespace reshardctl {

namespace {

// The one partial mesh dim's reduce type, where the source qualifies (see the header).
std::optional<ReduceType> singlePartial(const Layout& layout) {
  std::optional<ReduceType> type;
  for (size_t dim = 0; dim < layout.placements.size(); ++dim) {
    const Placement& placement = layout.placements[dim];
    if (placement.isReplicate() && layout.mesh.shape[dim] > 1) return std::nullopt;
    if (!placement.isPartial()) continue;
    if (type) return std::nullopt;
    type = placement.reduce;
  }
  return type;
}

bool unreduced(const Layout& layout) {
  return std::none_of(layout.placements.begin(), layout.placements.end(),
                      [](const Placement& p) { return p.isPartial(); });
}

// Meshes with a process in common (the same ranks in another order among
// them): their collectives serve, and a process would send to itself.
bool sharesProcesses(const ProcessMesh& a, const ProcessMesh& b) {
  const std::vector<int64_t> ids = processIds(a);
  for (int64_t id : processIds(b))
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) return true;
  return false;
}

}  // namespace

std::optional<Edge> reduceOnArrival(const Layout& from, const Layout& to, const TensorSpec& tensor,
                                    const CostModel& costs) {
  // Each source sends to each destination whose new box meets its piece: up
  // to sources x destinations sends, every one listed in the step. Beyond
  // kMaxSendRecvPairs the move is not considered (a partial on a 1-D mesh of
  // 4,096 ranks to another would list 16.7M pairs): meshChange's collectives serve.
  if (from.mesh.size() > kMaxSendRecvPairs / std::max<int64_t>(to.mesh.size(), 1)) return std::nullopt;
  const std::optional<ReduceType> type = singlePartial(from);
  if (!type || *type == ReduceType::Avg || !unreduced(to) || sharesProcesses(from.mesh, to.mesh)) return std::nullopt;
  if (!isRepresentable(to.placements, tensor.rank())) return std::nullopt;
  Step step;
  step.kind = StepKind::SendRecv;
  step.reduce = type;
  std::map<int64_t, int64_t> sent, received;
  const int64_t elementBytes = dtypeSize(tensor.dtype);
  for (int64_t target = 0; target < to.mesh.size(); ++target) {
    const int64_t destination = processIdAt(to.mesh, target);
    const Box wanted = localBox(tensor.shape, to, meshCoord(to.mesh, target));
    for (int64_t origin = 0; origin < from.mesh.size(); ++origin) {
      const Box part = intersect(wanted, localBox(tensor.shape, from, meshCoord(from.mesh, origin)));
      if (part.empty()) continue;
      const int64_t source = processIdAt(from.mesh, origin);
      step.groups.push_back({source, destination});
      sent[source] += part.volume() * elementBytes;
      received[destination] += part.volume() * elementBytes;
    }
  }
  for (const auto& [id, bytes] : sent) step.bytesPerRank = std::max(step.bytesPerRank, bytes);
  for (const auto& [id, bytes] : received) step.bytesPerRank = std::max(step.bytesPerRank, bytes);
  step.from = from;
  step.to = to;
  step.estUs = stepCostUs(step, costs);
  return Edge{to, step, step.estUs};
}

std::optional<Edge> meshCrossing(const Layout& from, const Layout& to, const TensorSpec& tensor,
                                 const CostModel& costs) {
  std::optional<Edge> moved = meshChange(from, to, tensor, costs);
  std::optional<Edge> reduced = reduceOnArrival(from, to, tensor, costs);
  if (!moved || (reduced && reduced->cost < moved->cost - 1e-9)) return reduced;
  return moved;
}

}  // namespace reshardctl
