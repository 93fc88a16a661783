#include "schedule/lowered_ranks.h"

#include <malloc.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

std::optional<std::string> loweringWorkRefusal(std::string_view what, const Program& dist, size_t ranks,
                                               std::optional<size_t> groupMembers) {
  const size_t ops = opCount(dist);
  const size_t perRank = ops + groupMembers.value_or(0);
  if (ranks == 0 || perRank <= kMaxLoweredOps / ranks) return std::nullopt;
  const double total = static_cast<double>(perRank) * static_cast<double>(ranks);
  if (!groupMembers)
    return fmt::format("lowering {} ops for each of {} ranks is {:.0f} ops, more than {} ({}): check the per-rank "
                       "programs instead",
                       ops, ranks, total, what, kMaxLoweredOps);
  return fmt::format("lowering one rank is {} units of work ({} ops, and {} members of the process groups its "
                     "reshards make or find); for each of {} ranks that is {:.0f}, more than {} ({}): check the "
                     "per-rank programs or a smaller mesh instead",
                     perRank, ops, *groupMembers, ranks, total, what, kMaxLoweredOps);
}

void dropLoweredRank(std::unique_ptr<Program>& program) {
  program.reset();
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

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
  if (lowered.ranks.empty()) {
    diagnostics.error("the program's meshes name no process ids: there is no rank to lower for");
    return lowered;
  }
  if (auto refusal = loweringWorkRefusal("schedule lowers", *dist, lowered.ranks.size(), std::nullopt)) {
    diagnostics.error(*refusal);
    return lowered;
  }
  for (size_t i = 0; i < lowered.ranks.size(); ++i) {
    LoweredRank rank = lowerRankClone(*dist, LowerOptions{lowered.ranks[i], LowerStage::Dense, plan}, diagnostics);
    std::unique_ptr<Program> program = std::move(rank.program);
    const LowerSummary summary = rank.summary;
    if (!summary.ok || !mergeRings(summary.rings, lowered.ranks[i], lowered.groups, diagnostics)) return lowered;
    // Every rank asks for the same groups: the first one's figure is each one's.
    if (i == 0)
      if (auto refusal = loweringWorkRefusal("schedule lowers", *dist, lowered.ranks.size(), summary.groupMembers)) {
        diagnostics.error(*refusal);
        return lowered;
      }
    sink(lowered.ranks[i], *program);
    dropLoweredRank(program);
  }
  lowered.ok = true;
  return lowered;
}

}  // namespace reshardctl
