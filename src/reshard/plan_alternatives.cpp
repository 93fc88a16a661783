#include "reshard/plan_alternatives.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reshard/transition.h"
#include "support/text.h"

namespace reshardctl {

namespace {

int64_t groupSizeOf(const Step& step) {
  if (step.kind == StepKind::SendRecv) return 2;
  int64_t size = 1;
  const std::vector<int64_t> dims = step.meshDims.empty() ? std::vector<int64_t>{step.meshDim} : step.meshDims;
  for (int64_t dim : dims)
    if (dim >= 0) size *= step.from.mesh.shape[static_cast<size_t>(dim)];
  return size;
}

bool communicates(StepKind kind) { return !isLocalStep(kind); }

// The model with one of its two terms left out: bytes only (no launch or hop
// latency) or latency only (links without a bandwidth limit).
CostModel bytesOnly(CostModel costs) {
  costs.launchUs = 0;
  costs.localLaunchUs = 0;
  costs.link.latencyUs = 0;
  costs.crossMesh.latencyUs = 0;
  costs.withinNode.latencyUs = 0;
  for (LinkSpec& link : costs.meshDims) link.latencyUs = 0;
  return costs;
}

CostModel latencyOnly(CostModel costs) {
  constexpr double kUnbounded = 1e15;  // GB/s: bytes cost nothing next to a launch
  costs.link.bandwidthGBs = kUnbounded;
  costs.crossMesh.bandwidthGBs = kUnbounded;
  costs.withinNode.bandwidthGBs = kUnbounded;
  costs.localBandwidthGBs = kUnbounded;
  for (LinkSpec& link : costs.meshDims) link.bandwidthGBs = kUnbounded;
  return costs;
}

// `plan` with each step priced by `costs`.
Plan repriced(Plan plan, const CostModel& costs) {
  plan.estUs = 0;
  for (Step& step : plan.steps) {
    step.estUs = stepCostUs(step, costs);
    plan.estUs += step.estUs;
  }
  return plan;
}

}  // namespace

PlanMeasure measurePlan(const Plan& plan, const CostModel& costs) {
  PlanMeasure measure;
  for (const Step& step : plan.steps) {
    if (!communicates(step.kind)) continue;
    ++measure.collectives;
    measure.busBytes += busBytes(step.kind, groupSizeOf(step), step.bytesPerRank);
  }
  measure.estUs = repriced(plan, costs).estUs;
  return measure;
}

std::vector<PlanAlternative> planAlternatives(const ReshardRequest& request, const CostModel& costs) {
  std::vector<PlanAlternative> alternatives;
  auto add = [&](std::string name, const Plan& plan) {
    Plan priced = repriced(plan, costs);
    PlanMeasure measure = measurePlan(priced, costs);
    alternatives.push_back({std::move(name), std::move(priced), measure});
  };
  add("chosen", planMinCost(request, costs));
  add("paddle nd_mesh", planGreedy(request, costs));
  if (std::optional<Plan> dtensor = planDTensorOrder(request, costs)) add("dtensor", *dtensor);
  add("fewest bytes", planMinCost(request, bytesOnly(costs)));
  add("fewest collectives", planMinCost(request, latencyOnly(costs)));
  return alternatives;
}

std::string whyChosen(const std::vector<PlanAlternative>& alternatives) {
  const PlanAlternative& chosen = alternatives.front();
  std::vector<std::string> peers, tradeoffs;
  for (size_t i = 1; i < alternatives.size(); ++i) {
    const PlanAlternative& other = alternatives[i];
    const PlanMeasure& m = other.measure;
    peers.push_back(fmt::format("{} {:.2f}", other.name, m.estUs));
    const bool fewerBytes = m.busBytes < chosen.measure.busBytes - 0.5;
    const bool fewerCollectives = m.collectives < chosen.measure.collectives;
    if (!fewerBytes && !fewerCollectives) continue;
    const std::string what =
        fewerBytes ? fmt::format("moves {:.0f} fewer bus bytes", chosen.measure.busBytes - m.busBytes)
                   : fmt::format("makes {} fewer", plural(static_cast<size_t>(chosen.measure.collectives - m.collectives),
                                                          "collective"));
    tradeoffs.push_back(fmt::format("{} {} but costs {:.2f} us more", other.name, what, m.estUs - chosen.measure.estUs));
  }
  std::string text = fmt::format("the cheapest by the model ({:.2f} us; {} us)", chosen.measure.estUs,
                                 fmt::join(peers, ", "));
  if (!tradeoffs.empty()) text += fmt::format("; {}", fmt::join(tradeoffs, "; "));
  return text;
}

}  // namespace reshardctl
