// A multi-process run's destination pieces, brought together so that every
// process checks the whole result exactly as a single process does
// (checkDestinationPieces needs every piece: partial pieces reduce across
// ranks, replicas are compared). Every process knows every rank's box from
// the lowering, which all of them run for all ranks, so only the values
// travel: each process's piece, concatenated in process order (an allgather).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "exec/piece.h"

namespace reshardctl {

// Elements each process contributes: the size of the box of the rank it owns
// (ranksByProcess[p]), 0 where that rank holds no piece.
std::vector<int64_t> exchangeCounts(const std::vector<int64_t>& ranksByProcess, const std::map<int64_t, Box>& boxes);

// The pieces of every rank that holds one, cut from `values` (all processes'
// contributions, concatenated in process order). Throws ExecutionError when
// `values` does not have the size the counts add up to.
std::map<int64_t, Piece> assemblePieces(const std::vector<int64_t>& ranksByProcess,
                                        const std::map<int64_t, Box>& boxes, const std::vector<double>& values);

}  // namespace reshardctl
