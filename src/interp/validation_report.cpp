#include "interp/validation_report.h"

#include <fmt/format.h>

#include "support/text.h"

namespace reshardctl {

std::string notSimulatedLine(const ValidationOutcome& outcome) {
  if (outcome.notSimulated.empty()) return {};
  std::string line = "not simulated:";
  for (size_t i = 0; i < outcome.notSimulated.size(); ++i) {
    const NotSimulated& n = outcome.notSimulated[i];
    line += fmt::format("{} {} \u00d7{}", i == 0 ? "" : ",", n.op, n.count);
    if (!n.reason.empty()) line += fmt::format(" ({})", n.reason);
  }
  return line;
}

std::string summaryLine(const ValidationOutcome& outcome) {
  std::string line = fmt::format("{} of {} match the serial program on {}", outcome.matchedOps,
                                 plural(outcome.totalOps, "op", "ops"), plural(outcome.ranks, "rank", "ranks"));
  if (outcome.processes > 1) line += fmt::format(" in {} processes", outcome.processes);
  if (outcome.divergedOps > 0) line += "; " + plural(outcome.divergedOps, "diverges", "diverge");
  const size_t unchecked = outcome.notSimulatedOps + outcome.dependentOps;
  if (unchecked > 0)
    line += fmt::format("; {} not checked ({} not simulated, {} fed by values that are not)", unchecked,
                        outcome.notSimulatedOps, outcome.dependentOps);
  if (outcome.stoppedEarly) line += "; stopped at the first divergence";
  else if (outcome.unexecutedOps > 0) line += fmt::format("; {} in branches not taken", outcome.unexecutedOps);
  return line;
}

}  // namespace reshardctl
