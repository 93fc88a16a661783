// Checks that need the whole graph, after parsing: op_dist_attr entries
// against the values they describe. (Syntax, names, counts and signature
// types are checked while parsing; a dist attr's own consistency while it is
// read.)
#pragma once

#include "ir/diagnostics.h"
#include "ir/ir.h"

namespace reshardctl {

// Returns true when no error was found.
bool verifyProgram(const Program& program, DiagnosticEngine& diagnostics);

}  // namespace reshardctl
