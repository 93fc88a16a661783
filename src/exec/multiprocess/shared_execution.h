// A plan run over MPI processes that each hold the pieces of their own ranks
// (validate's and run's ranks shared out: interp/share/rank_share.h, `run
// --backend cpu` under mpirun). Before each step that moves data, every
// process receives, in one all-to-all, the pieces that its ranks' groups
// read and other processes hold (a send_recv's sources for its
// destinations); it runs the step for its own ranks alone (cpu_executor.h's
// KeptRanks) and drops what it received. So a process holds its own ranks'
// pieces and, during one step, those of their groups' other members: memory
// ≈ 1/P of the pieces when the groups lie within processes, and never more
// than the pieces a single process would hold.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "exec/execution_backend.h"
#include "exec/piece.h"
#include "exec/reference_data.h"
#include "reshard/plan.h"

namespace reshardctl {

class ProcessGroup;

// The process (world rank) holding the pieces of rank `processId`.
using RankOwner = std::function<int(int64_t processId)>;

// Runs `plan` on `tensor`, which holds this process's own ranks' pieces (and
// afterwards holds their destination pieces). Every process calls it alike.
// A step that fails on any process (ExecutionError) throws the first
// process's message on every process, so none is left waiting.
// `received` (when given) counts the bytes of the elements received.
ExecutionStats executeShared(const Plan& plan, DistTensor& tensor, ProcessGroup& group, const RankOwner& ownerOf,
                             uint64_t* received = nullptr);

// checkDestinationPieces (reference_data.h) of a tensor shared so: every
// process checks its own ranks' pieces against `global` (each holds it
// whole), and all agree on the problem at the lowest mesh position and the
// largest error. A partial layout's pieces reduce across ranks: they are
// gathered by every process and checked whole (memory: all of them).
PieceCheck checkSharedPieces(const DistTensor& tensor, const GlobalTensor& global, ProcessGroup& group,
                             const RankOwner& ownerOf);

// Pieces as doubles (process id, box, values) and back; unpackPieces throws
// ExecutionError on a malformed stream.
void packPiece(int64_t processId, const Piece& piece, std::vector<double>& out);
std::map<int64_t, Piece> unpackPieces(const std::vector<double>& in);

}  // namespace reshardctl
