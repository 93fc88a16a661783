// The warnings `reshardctl verify` adds to the load-time checks: things
// Paddle accepts but a user usually wants to hear about. Each is reported
// through DiagnosticEngine::warning at the op or entry it concerns.
#pragma once

#include <vector>

#include "ir/diagnostics.h"
#include "ir/ir.h"

namespace reshardctl {

// Each warning has a name for -W<name>, -Wno-<name> and -Werror=<name>.
struct LintWarning {
  const char* name;     // "uneven-shards"
  const char* summary;  // one line, for --help, the man page and SARIF rules
};
const std::vector<LintWarning>& lintWarnings();

// Warns about (names in parentheses): a tensor dim not divisible by the
// mesh dim it is split over (uneven-shards); op_dist_attr entries beyond the
// op's operand or result count (extra-entry); dense values feeding ops whose
// op_dist_attr names a layout for them (dense-operand); meshes known only by their shape:
// generation A entries and types naming a mesh other than their op's
// (shape-only-mesh). Returns the number of warnings found, before the
// engine's policy drops or promotes any.
size_t lintProgram(const Program& program, DiagnosticEngine& diagnostics);

}  // namespace reshardctl
