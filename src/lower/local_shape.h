// The local shape of a distributed tensor on one rank: each split dim cut
// into chunks of ceil(n/k), the last shorter (reshard/local_box.h's chunks,
// r_to_s's slice bounds). A rank outside the mesh holds the global shape.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/dist_attr.h"

namespace reshardctl {

std::vector<int64_t> localShape(const std::vector<int64_t>& dims, const TensorDistAttr& dist, int64_t rank);

// The rank's row-major position in `mesh`, or -1 when it is not in it.
int64_t positionOf(const ProcessMesh& mesh, int64_t rank);

}  // namespace reshardctl
