// The CPU reference executor: every rank of the meshes is a piece in one process,
// and each plan step does on those pieces what its collective does on GPUs. Used
// by the tests to prove plans right on real data, and by `run` as the reference
// its GPU results are compared with.
#pragma once

#include "exec/piece.h"
#include "reshard/plan.h"

namespace reshardctl {

// Runs one step. The tensor's pieces must be those of step.from (up to the
// relabelling of mesh dims with one rank); afterwards they are those of step.to.
void executeStep(const Step& step, DistTensor& tensor);

// Runs every step, then labels the tensor with the plan's destination layout.
void executePlan(const Plan& plan, DistTensor& tensor);

}  // namespace reshardctl
