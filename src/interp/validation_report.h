// What `validate` prints besides its diagnostics: the line that lists the ops
// not simulated and the summary line (its JSON, in the vocabulary of every
// command's, is the tool's: tool/validate_command.cpp).
#pragma once

#include <string>

#include "interp/validation.h"

namespace reshardctl {

// "not simulated: pd_op.foo ×3, pd_op.bar ×1" (empty when every op has a kernel).
std::string notSimulatedLine(const ValidationOutcome& outcome);

// "26 of 26 ops match the serial program on 2 ranks", with clauses for ops
// that diverge, were not checked, or did not run.
std::string summaryLine(const ValidationOutcome& outcome);

}  // namespace reshardctl
