// A move between meshes that reduces on arrival: a partial tensor's pieces
// are cut into the parts the destination processes will hold, each part sent
// to its holder, and every destination reduces what arrives (instead of
// placing it). P(SUM) on [0,1] -> S(0) on [2,3]: each source sends half its
// piece to each destination crosswise (0->2 1->2 0->3 1->3, one step) and each
// destination sums the two halves it gets; an all_gather on [2,3] then makes
// R: 2 collectives, the bytes of reduce_scatter + send + all_gather and one
// collective fewer (Paddle's same_status sends whole pieces and all-reduces,
// p_to_r_reshard_func.py's PToRReshardFunctionCrossMesh; DTensor has no move
// between meshes).
#pragma once

#include <optional>

#include "reshard/transition.h"

namespace reshardctl {

// The send_recv step (Step::reduce set to the source's reduce type) from
// `from`, partial over exactly one mesh dim and replicated along none of more
// than one rank (so every element's pieces are the partial group's, one
// each), to `to`, free of partials, on a mesh of other processes. Each destination receives,
// from every source whose piece meets its new box, that intersection, in
// source mesh order, and reduces the parts pairwise from the identity, which
// is the reduction of reduce_op.h for every type but AVG (whose mean divides
// once at the end): AVG is left to the collectives. Priced as any send_recv
// (transition.h's meshChange). nullopt for any other pair of layouts, and
// where sources x destinations exceeds 65,536 (each pair a send listed).
std::optional<Edge> reduceOnArrival(const Layout& from, const Layout& to, const TensorSpec& tensor,
                                    const CostModel& costs);

// The move between meshes the planner takes: meshChange, or reduceOnArrival
// where it is cheaper or the only one.
std::optional<Edge> meshCrossing(const Layout& from, const Layout& to, const TensorSpec& tensor,
                                 const CostModel& costs);

}  // namespace reshardctl
