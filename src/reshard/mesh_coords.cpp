#include "reshard/mesh_coords.h"

#include <algorithm>

namespace reshardctl {

MeshCoord meshCoord(const ProcessMesh& mesh, int64_t position) {
  MeshCoord coord(mesh.shape.size(), 0);
  for (size_t i = mesh.shape.size(); i-- > 0;) {
    coord[i] = position % mesh.shape[i];
    position /= mesh.shape[i];
  }
  return coord;
}

int64_t meshPosition(const ProcessMesh& mesh, const MeshCoord& coord) {
  int64_t position = 0;
  for (size_t i = 0; i < mesh.shape.size(); ++i) position = position * mesh.shape[i] + coord[i];
  return position;
}

int64_t processIdAt(const ProcessMesh& mesh, int64_t position) {
  if (!mesh.idsKnown || mesh.processIds.empty()) return position;
  return mesh.processIds[static_cast<size_t>(position)];
}

std::vector<int64_t> processIds(const ProcessMesh& mesh) {
  std::vector<int64_t> ids;
  for (int64_t position = 0; position < mesh.size(); ++position) ids.push_back(processIdAt(mesh, position));
  return ids;
}

std::vector<std::vector<int64_t>> groupsAlong(const ProcessMesh& mesh, int64_t meshDim) {
  return groupsAlong(mesh, std::vector<int64_t>{meshDim});
}

std::vector<std::vector<int64_t>> groupsAlong(const ProcessMesh& mesh, const std::vector<int64_t>& meshDims) {
  std::vector<std::vector<int64_t>> groups;
  int64_t groupSize = 1;
  for (int64_t dim : meshDims) groupSize *= mesh.shape[static_cast<size_t>(dim)];
  for (int64_t position = 0; position < mesh.size(); ++position) {
    MeshCoord coord = meshCoord(mesh, position);
    // Each group is listed once, from its first member.
    if (std::any_of(meshDims.begin(), meshDims.end(), [&](int64_t dim) { return coord[static_cast<size_t>(dim)] != 0; }))
      continue;
    std::vector<int64_t> group;
    for (int64_t member = 0; member < groupSize; ++member) {
      int64_t rest = member;  // row-major over meshDims: the last dim varies fastest
      for (size_t i = meshDims.size(); i-- > 0;) {
        const size_t dim = static_cast<size_t>(meshDims[i]);
        coord[dim] = rest % mesh.shape[dim];
        rest /= mesh.shape[dim];
      }
      group.push_back(processIdAt(mesh, meshPosition(mesh, coord)));
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

}  // namespace reshardctl
