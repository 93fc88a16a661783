#include "interp/value_store.h"

#include <algorithm>
#include <set>

namespace reshardctl {

RankWorld::RankWorld(const Program& program) {
  std::set<int64_t> ids;
  auto addMesh = [&](const ProcessMesh& mesh) {
    for (int64_t id : processIds(mesh)) ids.insert(id);
  };
  auto addValue = [&](const Value* v) {
    if (v && v->dist) addMesh(v->dist->mesh);
  };
  for (const Value* arg : program.body()->arguments()) addValue(arg);
  walkOps(*program.body(), [&](const Operation* op) {
    if (op->distAttr()) addMesh(op->distAttr()->mesh);
    for (size_t i = 0; i < op->numResults(); ++i) addValue(op->result(i));
    for (const Block* region : op->regions())
      for (const Value* arg : region->arguments()) addValue(arg);
  });
  ids_.assign(ids.begin(), ids.end());
  if (ids_.empty()) ids_.push_back(0);
}

std::optional<size_t> RankWorld::indexOf(int64_t processId) const {
  auto found = std::lower_bound(ids_.begin(), ids_.end(), processId);
  if (found == ids_.end() || *found != processId) return std::nullopt;
  return static_cast<size_t>(found - ids_.begin());
}

std::vector<size_t> RankWorld::indicesOf(const ProcessMesh& mesh) const {
  std::vector<size_t> indices;
  for (int64_t id : processIds(mesh))
    if (std::optional<size_t> index = indexOf(id)) indices.push_back(*index);
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  return indices;
}

ValueState& ValueStore::at(const Value* value) {
  ValueState& state = states_[value->id];
  if (state.ranks.size() != worldSize_) state.ranks.resize(worldSize_);
  return state;
}

const Layout& LayoutCache::of(const TensorDistAttr& dist) {
  auto found = layouts_.find(&dist);
  if (found != layouts_.end()) return found->second.layout;
  return layouts_.emplace(&dist, Entry{toLayout(dist), std::nullopt}).first->second.layout;
}

std::optional<MeshCoord> LayoutCache::coordOf(const TensorDistAttr& dist, int64_t processId) {
  const ProcessMesh& mesh = of(dist).mesh;
  Entry& entry = layouts_.at(&dist);
  if (!entry.positions) {
    entry.positions.emplace();
    const int64_t size = mesh.size();
    for (int64_t position = 0; position < size; ++position) entry.positions->emplace(processIdAt(mesh, position), position);
  }
  auto found = entry.positions->find(processId);
  if (found == entry.positions->end()) return std::nullopt;
  return meshCoord(mesh, found->second);
}

}  // namespace reshardctl
