#include "schedule/lowered_ranks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ir/clone/program_clone.h"
#include "lower/lower_program.h"
#include "schedule/comm_call.h"

namespace reshardctl {

namespace {

size_t opCount(const Program& program) {
  size_t count = 0;
  walkOps(*program.body(), [&](const Operation*) { ++count; });
  return count;
}

// Every rank's lowering makes the same groups in the same order
// (process_groups.h); a ring two ranks disagree on would be a lowering bug,
// refused here rather than checked as something it is not.
bool mergeRings(const std::map<int64_t, std::vector<int64_t>>& rings, int64_t rank, GroupTable& groups,
                DiagnosticEngine& diagnostics) {
  for (const auto& [ring, members] : rings) {
    auto [it, fresh] = groups.emplace(ring, members);
    if (fresh || it->second == members) continue;
    diagnostics.error(fmt::format("lowering rank {} made ring {} of ranks [{}], another rank's lowering of [{}]", rank,
                                  ring, fmt::join(members, ","), fmt::join(it->second, ",")));
    return false;
  }
  return true;
}

}  // namespace

bool isDistProgram(const Program& program) {
  bool distributed = false, lowered = false;
  walkOps(*program.body(), [&](const Operation* op) {
    distributed = distributed || op->distAttr() != nullptr;
    lowered = lowered || commKindOf(op->name()).has_value();
  });
  return distributed && !lowered;
}

LoweredRanks lowerEveryRank(const Program* dist, const LoweredRankSink& sink, DiagnosticEngine& diagnostics,
                            const CostModel* plan) {
  LoweredRanks lowered;
  if (!dist || !checkLowerable(*dist, diagnostics)) return lowered;
  lowered.ranks = programRanks(*dist);
  const size_t ops = opCount(*dist);
  if (lowered.ranks.empty() || ops > kMaxLoweredOps / lowered.ranks.size()) {
    diagnostics.error(lowered.ranks.empty()
                          ? std::string("the program's meshes name no process ids: there is no rank to lower for")
                          : fmt::format("lowering {} ops for each of {} ranks is {} ops, more than schedule lowers "
                                        "({}): check the per-rank programs instead",
                                        ops, lowered.ranks.size(), ops * lowered.ranks.size(), kMaxLoweredOps));
    return lowered;
  }
  for (size_t i = 0; i < lowered.ranks.size(); ++i) {
    std::unique_ptr<Program> program = cloneProgram(*dist);
    LowerSummary summary;
    try {
      summary = lowerProgram(*program, LowerOptions{lowered.ranks[i], LowerStage::Dense, plan}, diagnostics);
    } catch (const InputError& error) {
      // Text the lowering built failed to read back (a layout it cannot
      // express): the program is refused, not the run.
      diagnostics.error(fmt::format("cannot lower the program for rank {}: {}", lowered.ranks[i], error.message));
      return lowered;
    }
    if (!summary.ok || !mergeRings(summary.rings, lowered.ranks[i], lowered.groups, diagnostics)) return lowered;
    sink(lowered.ranks[i], *program);
  }
  lowered.ok = true;
  return lowered;
}

}  // namespace reshardctl
