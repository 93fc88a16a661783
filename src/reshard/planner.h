// Plans a reshard: the cheapest sequence of primitives (transition.h) from the
// source layout to the destination layout under a cost model.
//
// planMinCost runs Dijkstra over layouts, as DTensor's min-cost planner does,
// where the layouts are few enough (kExactSearchWork); else the bounded
// dim-by-dim fallback (planDimByDim), as Paddle and DTensor plan many mesh dims. The
// states are the placements Paddle can express (each tensor dim split by at most
// one mesh dim), using only the reduce types of the source and the destination.
// Besides one mesh dim's moves, several mesh dims may change at once by one
// collective over their flattened group (all_reduce, all_gather, reduce_scatter:
// transition.h's flattenedCollective), and on the goal's mesh an unreduced layout
// may reach the goal (its partials replicated) by a permutation of pieces, send/recv
// pairs in one step (transition.h's permutation).
// Between meshes the states are (side, placements): edges on the source mesh,
// send_recv edges from the source mesh to the destination mesh (rank to rank with
// equal placements on equal mesh shapes, by intersection between any two layouts
// without partials), then edges on the destination mesh; so the layout changes
// happen on whichever side is cheaper.
//
// planGreedy is the per-mesh-dim plan Paddle's SameNdMesh lowering builds, kept
// to compare against: partial dims to R (lowest first), split dims to R (highest
// first), then R to the destination's partials (highest first) and splits
// (lowest first); between meshes: rank to rank and then the rest on the
// destination mesh when mesh shapes are equal, else replicate, send, and split.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "ir/dist_attr.h"
#include "reshard/cost_model.h"
#include "reshard/plan.h"

namespace reshardctl {

struct ReshardRequest {
  std::vector<int64_t> shape;  // global shape; -1 for unknown dims
  DType dtype = DType::F32;
  TensorDistAttr src;
  TensorDistAttr dst;
};

// Raised when a request has no plan: a dist attr that does not fit the tensor or
// its mesh, or a destination no primitive sequence reaches (an ANY/ALL partial
// below a partial of another type cannot be made: its pieces would have to be
// 0/1 while the outer pieces are not; bool tensors, all 0/1, are exempt).
// Valid reshards never raise it.
class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The exact search runs when the edges it may evaluate (every state's moves;
// between meshes, each unreduced source layout to each destination layout,
// counted once per destination rank) are at most this many; else planMinCost
// returns planDimByDim's plan. Both say which in Plan::search.
inline constexpr double kExactSearchWork = 250000;

Plan planMinCost(const ReshardRequest& request, const CostModel& costs);
Plan planGreedy(const ReshardRequest& request, const CostModel& costs);
// The bounded fallback: Paddle's per-mesh-dim route and DTensor's (mesh dims in
// ascending order, one mesh only), each improved by path_improvement.h, the
// cheaper one built. Work: O(n^2 + k^2) step evaluations per improvement pass
// for n mesh dims and a route of k <= 4n steps, plus O(k * ranks) to list the
// chosen steps' groups; memory O(k * (ranks + n)). Never costlier by the model
// than either route.
Plan planDimByDim(const ReshardRequest& request, const CostModel& costs);
// DTensor's route alone, for comparison; nullopt between meshes or where it gets stuck.
std::optional<Plan> planDTensorOrder(const ReshardRequest& request, const CostModel& costs);

}  // namespace reshardctl
