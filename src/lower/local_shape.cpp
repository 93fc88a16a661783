#include "lower/local_shape.h"

#include "reshard/local_box.h"
#include "reshard/mesh_coords.h"

namespace reshardctl {

int64_t positionOf(const ProcessMesh& mesh, int64_t rank) {
  const std::vector<int64_t> ids = processIds(mesh);
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == rank) return static_cast<int64_t>(i);
  return -1;
}

std::vector<int64_t> localShape(const std::vector<int64_t>& dims, const TensorDistAttr& dist, int64_t rank) {
  std::vector<int64_t> local = dims;
  const int64_t position = positionOf(dist.mesh, rank);
  if (position < 0) return local;
  const MeshCoord coord = meshCoord(dist.mesh, position);
  for (size_t d = 0; d < local.size() && d < dist.dimsMapping.size(); ++d) {
    const int64_t meshDim = dist.dimsMapping[d];
    if (meshDim < 0 || meshDim >= dist.mesh.ndim() || local[d] < 0 || dist.mesh.shape[meshDim] <= 0) continue;
    auto [begin, end] = chunkRange(local[d], dist.mesh.shape[meshDim], coord[meshDim]);
    local[d] = end - begin;
  }
  return local;
}

}  // namespace reshardctl
