// Local improvement of a plan on one mesh, seen as the placements it passes
// through: the bounded planner's second half (planner.h). Two moves, each kept
// only when the model says it is cheaper (or as cheap with fewer steps):
//   shortcut  waypoints i..j (j >= i+2) replaced by one step (transition.h's
//             placementChange): S->R->S' on one mesh dim becomes one all_to_all,
//             partials of one type reduced dim after dim one all_reduce over
//             their flattened group, a detour is removed;
//   swap      two steps on different mesh dims exchanged (the bytes of a step
//             depend on what the other dims hold: reduce before gathering).
// Bound: at most kImprovementPasses passes, each O(k^2) step evaluations for a
// path of k steps, each O(mesh dims + tensor dims) (costs only, no groups);
// memory O(k * mesh dims).
#pragma once

#include <cstdint>
#include <vector>

#include "reshard/cost_model.h"
#include "reshard/placement.h"
#include "reshard/transition.h"

namespace reshardctl {

inline constexpr int kImprovementPasses = 8;

// The one mesh dim on which two placement lists differ; -1 when they are
// equal, -2 when they differ on several.
int64_t changedMeshDim(const Placements& a, const Placements& b);

// The cost of the one-step change a -> b on `mesh` (placementChange; 0 when
// equal), or a negative value when no single primitive makes it.
double hopCost(const ProcessMesh& mesh, const Placements& a, const Placements& b, const TensorSpec& tensor,
               const CostModel& costs);

// `waypoints` (front: the start, back: the goal, each one step from the next)
// improved by shortcuts and swaps; the ends stay.
std::vector<Placements> improvePath(const ProcessMesh& mesh, std::vector<Placements> waypoints,
                                    const TensorSpec& tensor, const CostModel& costs);

}  // namespace reshardctl
