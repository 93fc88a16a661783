#include "lower/local_shape.h"

#include "reshard/local_box.h"
#include "reshard/mesh_coords.h"

namespace reshardctl {

int64_t positionOf(const ProcessMesh& mesh, int64_t rank) {
  // Reads the ids in place (pruning asks this for every op): no copy.
  const int64_t size = mesh.size();
  for (int64_t position = 0; position < size; ++position)
    if (processIdAt(mesh, position) == rank) return position;
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
