// Positions on a process mesh: row-major coordinates, the process id at each
// position, and the groups of processes a collective along one mesh dim runs on.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/dist_attr.h"

namespace reshardctl {

using MeshCoord = std::vector<int64_t>;  // one entry per mesh dim

MeshCoord meshCoord(const ProcessMesh& mesh, int64_t position);  // position in row-major order
int64_t meshPosition(const ProcessMesh& mesh, const MeshCoord& coord);

// The process at a row-major position. A mesh whose ids are unknown (generation-A
// types) is numbered 0..size-1, the numbering Paddle gives a fresh mesh.
int64_t processIdAt(const ProcessMesh& mesh, int64_t position);
std::vector<int64_t> processIds(const ProcessMesh& mesh);

// The groups of a collective along `meshDim`: one group per combination of the
// other coordinates (in row-major order), each listing its process ids by their
// coordinate along `meshDim`.
std::vector<std::vector<int64_t>> groupsAlong(const ProcessMesh& mesh, int64_t meshDim);
// The groups of a collective over the flattened group of several mesh dims
// (ascending): one per combination of the other coordinates, each listing its
// process ids in row-major order of their coordinates on `meshDims`.
std::vector<std::vector<int64_t>> groupsAlong(const ProcessMesh& mesh, const std::vector<int64_t>& meshDims);

}  // namespace reshardctl
