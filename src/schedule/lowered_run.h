// `validate --lowered`: every rank's own lowered dense program run, and the
// results compared with the serial program as validate compares them.
//
//   1. The dist program runs serially (interp/local_run.h): dist_op.reshard
//      is the identity, program inputs are seeded as validate seeds them.
//   2. Each rank's lowered program runs on its own (local kernels on its local
//      shapes), all ranks together through the rendezvous (rank_rendezvous.h):
//      its program inputs are its pieces of the serial inputs, each
//      communication op (comm_call.h) runs across its communicator's ranks on
//      exec's executor (collective_data.h).
//   3. Each op of the dist program that ran serially is compared: its results
//      assembled from the ranks' results of the same op (the op at the same
//      place in the input: lowering keeps the ops it does not make) by the
//      result's dist type (interp/result_check.h), and a reshard's result by
//      what its consumers read in its place. A wait that never ends or
//      members whose calls do not match is a divergence too.
//
// Memory: the serial program's values and every rank's op results are kept
// until the comparison, which checkBudgetUpFront's figure for the dist
// program (every value, serial and pieces) bounds, plus the values the
// lowering adds.
#pragma once

#include <vector>

#include "exec/execution_backend.h"
#include "interp/validation.h"
#include "ir/ir.h"
#include "schedule/schedule.h"

namespace reshardctl {

// `ranks`: each rank's lowered dense program, parsed from the same input as
// `dist`; `groups`: the lowering's ring table. Divergences name ops of `dist`,
// or (a hang, a mismatched call) the rank's communication op.
ValidationOutcome validateLowered(const Program& dist, const std::vector<RankInput>& ranks, const GroupTable& groups,
                                  ExecutionBackend& backend, const ValidateOptions& options);

}  // namespace reshardctl
