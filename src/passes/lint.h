// The warnings `reshardctl verify` adds to the load-time checks: things
// Paddle accepts but a user usually wants to hear about. Each is reported
// through DiagnosticEngine::warning at the op or entry it concerns.
#pragma once

#include "ir/diagnostics.h"
#include "ir/ir.h"

namespace reshardctl {

// Warns about: a tensor dim not divisible by the mesh dim it is split over
// (uneven shards); op_dist_attr entries beyond the op's operand or result
// count; dense values feeding ops that have an op_dist_attr; meshes known
// only by their shape (generation A entries and types naming a mesh other
// than their op's). Returns the number of warnings issued.
size_t lintProgram(const Program& program, DiagnosticEngine& diagnostics);

}  // namespace reshardctl
