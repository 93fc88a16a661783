// The CPU reference executor: every rank of the meshes is a piece in one process,
// and each plan step does on those pieces what its collective does on GPUs. Used
// by the tests to prove plans right on real data, and by `run` as the reference
// its GPU results are compared with.
#pragma once

#include <functional>

#include "exec/piece.h"
#include "reshard/plan.h"

namespace reshardctl {

// Which ranks' results a step computes: all, or (under mpirun, where a process
// holds its own ranks and the pieces their groups read) the kept ones. A
// group none of whose members is kept is skipped, and then need not be held.
using KeptRanks = std::function<bool(int64_t processId)>;

// Runs one step. The tensor's pieces must be those of step.from (up to the
// relabelling of mesh dims with one rank); afterwards they are those of step.to
// (with `kept`: those of the kept ranks; the others' are left as they were).
void executeStep(const Step& step, DistTensor& tensor, const KeptRanks& kept = {});

// Runs every step, then labels the tensor with the plan's destination layout.
void executePlan(const Plan& plan, DistTensor& tensor);

}  // namespace reshardctl
