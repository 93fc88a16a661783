#include "exec/plan_footprint.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "reshard/local_box.h"
#include "support/text.h"

namespace reshardctl {

namespace {

constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max() / 4;

uint64_t times(uint64_t a, uint64_t b) { return a != 0 && b > kSaturated / a ? kSaturated : a * b; }
uint64_t plus(uint64_t a, uint64_t b) { return std::min(kSaturated, a + b); }
uint64_t count(int64_t n) { return static_cast<uint64_t>(std::max<int64_t>(n, 1)); }

// The elements of one rank's piece: the largest piece of an uneven split
// (a layout splits a tensor dim over at most one mesh dim: placement.h).
uint64_t pieceElements(const std::vector<int64_t>& shape, const Layout& layout) {
  std::vector<int64_t> known = shape;
  for (int64_t& extent : known) extent = std::max<int64_t>(extent, 0);
  return std::min(kSaturated, static_cast<uint64_t>(elementCount(paddedLocalShape(known, layout))));
}

uint64_t ranksOf(const Layout& layout) { return count(layout.mesh.size()); }

// What one rank reads of its input pieces for a step (see PlanFootprint::work).
uint64_t readPerRank(const Step& step, uint64_t from, uint64_t to) {
  const uint64_t group = step.groups.empty() ? 1 : count(static_cast<int64_t>(step.groups.front().size()));
  switch (step.kind) {
    case StepKind::AllReduce: return times(group, from);
    case StepKind::AllGather: return to;
    default: return from;
  }
}

}  // namespace

uint64_t layoutBytes(const std::vector<int64_t>& shape, const Layout& layout) {
  return times(times(ranksOf(layout), pieceElements(shape, layout)), sizeof(double));
}

PlanFootprint planFootprint(const Plan& plan) {
  PlanFootprint footprint;
  footprint.peakBytes = layoutBytes(plan.shape, plan.src);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step& step = plan.steps[i];
    const uint64_t held = plus(layoutBytes(plan.shape, step.from), layoutBytes(plan.shape, step.to));
    if (held > footprint.peakBytes) {
      footprint.peakBytes = held;
      footprint.peakStep = i + 1;
    }
    const uint64_t from = pieceElements(plan.shape, step.from), to = pieceElements(plan.shape, step.to);
    footprint.work = plus(footprint.work, times(ranksOf(step.from), std::max<uint64_t>(readPerRank(step, from, to), 1)));
    footprint.work = plus(footprint.work, times(ranksOf(step.to), std::max<uint64_t>(to, 1)));
  }
  return footprint;
}

std::string footprintProblem(const PlanFootprint& footprint, size_t steps, uint64_t bytes, uint64_t work,
                             const FootprintLimits& limits) {
  auto units = [](uint64_t figure) { return fmt::format("{:.3g}", static_cast<double>(figure)); };
  if (limits.maxBytes != 0 && bytes > limits.maxBytes) {
    const std::string where = footprint.peakStep == 0
                                  ? std::string("its source pieces")
                                  : fmt::format("step {} of {} (its pieces before and after it on every rank, and what the "
                                                "run holds besides)",
                                                footprint.peakStep, steps);
    return fmt::format("its plan holds {} bytes at {}, more than {}", units(bytes), where, limits.bytesLimit);
  }
  if (limits.maxWork != 0 && work > limits.maxWork)
    return fmt::format("its plan's {} {} elements on the ranks, more than {}",
                       plural(steps, "step copies or reduces", "steps copy or reduce"), units(work), limits.workLimit);
  return "";
}

}  // namespace reshardctl
