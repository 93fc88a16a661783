// The edges of the planner's search: every layout change one primitive makes,
// with its step and cost. Both planners build their plans from these, so a plan
// is valid exactly when each of its edges is.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "reshard/cost_model.h"
#include "reshard/plan.h"

namespace reshardctl {

// What the planner needs to know about the tensor: its global shape (unknown
// dims already replaced by 1) and element type.
struct TensorSpec {
  std::vector<int64_t> shape;
  DType dtype = DType::F32;
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
};

// A change of layout: the step that makes it, or none when the mesh dim has a
// single rank (the data stays as it is, only the label changes; cost 0).
struct Edge {
  Layout to;
  std::optional<Step> step;
  double cost = 0;
};

// How much of a step to build: everything, or its kind, bytes and cost without
// its groups (O(ranks) to list), for searches that only compare costs.
enum class StepDetail : uint8_t { Full, CostOnly };

// Changes the placement of one mesh dim. nullopt when no single primitive does
// it, when the result is not representable in Paddle's model, or when it would
// reorder reductions that do not commute (see reduce_op.h):
//   P(r) -> R          all_reduce            P(r) -> S(d)   reduce_scatter
//   S(d) -> R          all_gather            S(d) -> S(e)   all_to_all
//   R -> S(d)          slice                 R -> P(r)      partial_init
//   S(d) -> P(r)       partial_init keeping each rank's chunk (not for AVG)
// A partial mesh dim may only be made or reduced while every lower partial mesh
// dim commutes with it; ANY/ALL partials are only made next to no other type,
// since they need 0/1 pieces (bool tensors excepted: all their pieces are 0/1).
std::optional<Edge> meshDimTransition(const Layout& from, int64_t meshDim, const Placement& to,
                                      const TensorSpec& tensor, const CostModel& costs,
                                      StepDetail detail = StepDetail::Full);

// Reduces the partial mesh dims `meshDims` (two or more, ascending, of one
// reduce type other than AVG, whose integer division would round twice) at once:
// one all_reduce over the flattened group of their ranks, as DTensor does on a
// flattened mesh, priced on the slowest of their links. nullopt when a dim is
// not such a partial, or a lower partial dim outside them does not commute.
std::optional<Edge> flattenedAllReduce(const Layout& from, const std::vector<int64_t>& meshDims,
                                       const TensorSpec& tensor, const CostModel& costs,
                                       StepDetail detail = StepDetail::Full);

// One step from `from` to the placements `to`: meshDimTransition where they
// differ on one mesh dim, flattenedAllReduce where several partials become R.
// An edge without a step when they are equal; nullopt when no one step does it.
std::optional<Edge> placementChange(const Layout& from, const Placements& to, const TensorSpec& tensor,
                                    const CostModel& costs, StepDetail detail = StepDetail::Full);

// Moves the tensor from one mesh to another (send_recv). With equal mesh shapes
// and equal placements, each destination takes the piece of a source position
// with the same box: a process that already holds one keeps it when pieces are
// interchangeable (no partials, or partials of one type and no replicated dim),
// so permuted process ids move only what changes holder; else rank i sends to
// rank i (partial pieces too).
// Otherwise both layouts must be free of partials: every destination piece
// receives the parts of the source pieces it intersects, each part from one
// replica (the destination process itself when it holds one, else the least
// loaded). nullopt for any other pair. A move in which no process sends to
// another is no send_recv: no step when every process already holds its new
// piece, else a local `slice` of each destination's own piece.
std::optional<Edge> meshChange(const Layout& from, const Layout& to, const TensorSpec& tensor,
                               const CostModel& costs);

}  // namespace reshardctl
