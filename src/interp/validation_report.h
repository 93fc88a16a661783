// What `validate` prints besides its diagnostics: the line that lists the ops
// not simulated, the summary line, and the same as JSON.
#pragma once

#include <string>

#include "interp/validation.h"
#include "ir/source.h"

namespace reshardctl {

// "not simulated: pd_op.foo ×3, pd_op.bar ×1" (empty when every op has a kernel).
std::string notSimulatedLine(const ValidationOutcome& outcome);

// "26 of 26 ops match the serial program on 2 ranks", with clauses for ops
// that diverge, were not checked, or did not run.
std::string summaryLine(const ValidationOutcome& outcome);

// Everything as one JSON object (the diagnostics' lines from `source`).
std::string validationJson(const ValidationOutcome& outcome, const SourceFile& source, uint64_t seed,
                           const std::string& backend);

}  // namespace reshardctl
