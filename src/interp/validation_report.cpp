#include "interp/validation_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace reshardctl {

namespace {

std::string plural(size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

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
  if (outcome.divergedOps > 0) line += fmt::format("; {} diverge{}", outcome.divergedOps, outcome.divergedOps == 1 ? "s" : "");
  const size_t unchecked = outcome.notSimulatedOps + outcome.dependentOps;
  if (unchecked > 0)
    line += fmt::format("; {} not checked ({} not simulated, {} fed by values that are not)", unchecked,
                        outcome.notSimulatedOps, outcome.dependentOps);
  if (outcome.stoppedEarly) line += "; stopped at the first divergence";
  else if (outcome.unexecutedOps > 0) line += fmt::format("; {} in branches not taken", outcome.unexecutedOps);
  return line;
}

std::string validationJson(const ValidationOutcome& outcome, const SourceFile& source, uint64_t seed,
                           const std::string& backend) {
  using json = nlohmann::ordered_json;
  json notSimulated = json::array();
  for (const NotSimulated& n : outcome.notSimulated)
    notSimulated.push_back({{"op", n.op}, {"count", n.count}, {"reason", n.reason.empty() ? json(nullptr) : json(n.reason)}});
  json divergences = json::array();
  for (const Divergence& d : outcome.divergences) {
    const bool located = d.op && d.op->location() != 0 && d.op->location() < source.text().size();
    const SourceFile::LineCol at = located ? source.lineCol(d.op->location()) : SourceFile::LineCol{};
    divergences.push_back({{"line", located ? json(at.line) : json(nullptr)},
                           {"column", located ? json(at.column) : json(nullptr)},
                           {"op", d.op ? json(std::string(d.op->name())) : json(nullptr)},
                           {"kind", d.kind},
                           {"result", d.result ? json(*d.result) : json(nullptr)},
                           {"value", d.value.empty() ? json(nullptr) : json(d.value)},
                           {"ranks", d.ranks},
                           {"max_abs_diff", d.maxAbsDiff},
                           {"max_rel_err", d.maxRelErr},
                           {"index", d.index},
                           {"message", d.message}});
  }
  const json out = {{"file", source.name()},
                    {"backend", backend},
                    {"seed", seed},
                    {"ranks", outcome.ranks},
                    {"ops", outcome.totalOps},
                    {"matched", outcome.matchedOps},
                    {"diverged", outcome.divergedOps},
                    {"not_simulated_ops", outcome.notSimulatedOps},
                    {"dependent_ops", outcome.dependentOps},
                    {"not_run", outcome.unexecutedOps},
                    {"stopped_early", outcome.stoppedEarly},
                    {"not_simulated", std::move(notSimulated)},
                    {"divergences", std::move(divergences)},
                    {"summary", summaryLine(outcome)}};
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace reshardctl
