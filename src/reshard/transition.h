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
// its groups (O(ranks) to list) and its layouts (copies the edge's `to` has),
// for searches that only compare costs.
enum class StepDetail : uint8_t { Full, CostOnly };

// Changes the placement of one mesh dim. nullopt when no single primitive does
// it, when the result is not representable in Paddle's model, or when it would
// reorder reductions that do not commute (see reduce_op.h):
//   P(r) -> R          all_reduce            P(r) -> S(d)   reduce_scatter
//   S(d) -> R          all_gather            S(d) -> S(e)   all_to_all
//   R -> S(d)          slice                 R -> P(r)      partial_init
//   S(d) -> P(r)       partial_init keeping each rank's chunk (not for AVG)
//   P(SUM) <-> P(AVG)  scale, local: each piece times n or 1/n, only where exact
//                      (real floating point, n a power of two; see Step::scale)
// A partial mesh dim may only be made or reduced while every lower partial mesh
// dim commutes with it; ANY/ALL partials are only made next to no other type,
// since they need 0/1 pieces (bool tensors excepted: all their pieces are 0/1).
std::optional<Edge> meshDimTransition(const Layout& from, int64_t meshDim, const Placement& to,
                                      const TensorSpec& tensor, const CostModel& costs,
                                      StepDetail detail = StepDetail::Full);

// Changes the mesh dims `meshDims` (two or more, ascending) to their placements
// in `to` at once, by one collective over the flattened group of their ranks (a
// communicator over those ranks, as DTensor's on a flattened mesh), priced on
// the slowest of their links:
//   P(r),P(r),.. -> R,R,..        all_reduce
//   S(a),S(b),.. -> R,R,..        all_gather (every member's block to every member)
//   P(r),P(r),.. -> S(a),S(b),..  reduce_scatter (each member keeps its block)
// The partials are of one reduce type other than AVG, whose integer division
// would round once where the placements say once per mesh dim. nullopt for any
// other change, when a lower partial dim outside them does not commute, or when
// the result is not representable.
std::optional<Edge> flattenedCollective(const Layout& from, const std::vector<int64_t>& meshDims,
                                        const Placements& to, const TensorSpec& tensor, const CostModel& costs,
                                        StepDetail detail = StepDetail::Full);

// One collective (or local step) from `from` to the placements `to`:
// meshDimTransition where they differ on one mesh dim, flattenedCollective
// where they differ on several. An edge without a step when they are equal;
// nullopt when no one collective does it.
std::optional<Edge> collectiveChange(const Layout& from, const Placements& to, const TensorSpec& tensor,
                                     const CostModel& costs, StepDetail detail = StepDetail::Full);

// The most [source, destination] pairs one send_recv found by intersection
// (meshChange below) may list: kMaxSendRecvPairs, or one per process of the
// two meshes where they hold more (a move in which each destination takes
// one part is linear in the meshes). Beyond it, where destinations each
// gather many pieces (S(0) on 4,096 ranks to R on 4,096 others: 16.7M pairs),
// the move is not considered, and the planner moves the tensor another way
// (collectives on either mesh around a move of one part per destination).
// Counted per block of chunks before any pair is listed (send_recv/piece_grid.h).
inline constexpr int64_t kMaxSendRecvPairs = int64_t{1} << 16;
int64_t maxSendRecvPairs(const ProcessMesh& from, const ProcessMesh& to);

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
// piece, else a local `slice` of each destination's own piece. nullopt too where
// the pairs by intersection exceed maxSendRecvPairs. Pairs that stay
// among the source mesh's processes are priced on its links
// (CostModel::pointToPointUs), the others on the link between meshes.
std::optional<Edge> meshChange(const Layout& from, const Layout& to, const TensorSpec& tensor,
                               const CostModel& costs);

// The processes a permutation lists pairs for: it lists every destination's
// parts by intersection (up to ranks^2 pairs where each gathers) and the
// search tries it from every state, so larger meshes only take collectives.
inline constexpr int64_t kPermutationRanks = 64;

// Moves pieces point to point within one mesh (send_recv pairs, all in one
// step): each process receives the parts of its new piece that other processes
// hold and keeps what it holds itself, so [S(0),S(1)] -> [S(1),S(0)] on 2x2 is
// ranks 0 and 3 keeping their piece and 1 and 2 swapping theirs. Priced on the
// slowest link the pairs cross (CostModel::pointToPointUs). Only between
// layouts without partials, on at most kPermutationRanks processes; nullopt
// otherwise or when the placements are equal.
std::optional<Edge> permutation(const Layout& from, const Placements& to, const TensorSpec& tensor,
                                const CostModel& costs);

// One step from `from` to the placements `to`: collectiveChange, or the
// permutation where it is cheaper or the only move. An edge without a step
// when they are equal; nullopt when no one step does it.
std::optional<Edge> placementChange(const Layout& from, const Placements& to, const TensorSpec& tensor,
                                    const CostModel& costs, StepDetail detail = StepDetail::Full);

// A built step's cost under `costs` (as the edge that made it prices it), for
// plans made under another model.
double stepCostUs(const Step& step, const CostModel& costs);

}  // namespace reshardctl
