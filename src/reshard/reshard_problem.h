// A reshard request as the planner works on it: checked (meshes, layouts,
// reachability, a size that fits in 64 bits) and converted to layouts; and a
// plan assembled from the steps of a path. Shared by the planner's searches
// (reshard/planner.cpp).
#pragma once

#include <vector>

#include "reshard/plan.h"
#include "reshard/planner.h"
#include "reshard/transition.h"

namespace reshardctl::planning {

// A request checked and converted to layouts.
struct Problem {
  TensorSpec tensor;
  bool shapeKnown = true;
  Layout src;
  Layout dst;
  std::vector<ReduceType> reduces;  // the partial types the search may use

  bool crossMesh() const { return !(src.mesh == dst.mesh); }
};

// The request checked (PlanError says what is wrong) and converted.
Problem prepare(const ReshardRequest& request);

// The plan of the steps along `path` (edges without a step are free).
Plan assemblePlan(const Problem& problem, const std::vector<Edge>& path);

}  // namespace reshardctl::planning
