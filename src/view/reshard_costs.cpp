#include "view/reshard_costs.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "reshard/placement.h"

namespace reshardctl {

ReshardCosts::ReshardCosts(const Program& program, const SourceFile& source, const CostModel& costs) {
  forEachPlannedProgramReshard(program, costs, sourceLines(source), [&](ReshardReport& report) {
    reports_.push_back({report.op, report.line, std::move(report.plan), std::move(report.error)});
  });
  byOp_.reserve(reports_.size());
  for (size_t i = 0; i < reports_.size(); ++i) {
    byOp_.emplace(reports_[i].op, i);
    if (!reports_[i].plan) continue;
    totalUs_ += reports_[i].plan->estUs;
    maxUs_ = std::max(maxUs_, reports_[i].plan->estUs);
  }
}

const ReshardCost* ReshardCosts::of(const Operation& op) const {
  auto found = byOp_.find(&op);
  return found == byOp_.end() ? nullptr : &reports_[found->second];
}

double ReshardCosts::heat(const ReshardCost& report) const {
  if (!report.plan || maxUs_ <= 0) return 0;
  return std::clamp(report.plan->estUs / maxUs_, 0.0, 1.0);
}

std::vector<MeshCostTotal> ReshardCosts::perMesh() const {
  std::vector<MeshCostTotal> totals;
  std::unordered_map<std::string, size_t> byMeshes;
  for (const ReshardCost& report : reports_) {
    if (!report.plan) continue;
    const Plan& plan = *report.plan;
    std::string meshes = meshText(plan.src.mesh);
    if (plan.crossMesh()) meshes += " -> " + meshText(plan.dst.mesh);
    auto [found, added] = byMeshes.try_emplace(meshes, totals.size());
    if (added) totals.push_back({std::move(meshes)});
    MeshCostTotal& total = totals[found->second];
    ++total.reshards;
    total.steps += plan.steps.size();
    total.bytes += communicationBytes(plan);
    total.estUs += plan.estUs;
  }
  return totals;
}

int64_t communicationBytes(const Plan& plan) {
  int64_t bytes = 0;
  for (const Step& step : plan.steps)
    if (!isLocalStep(step.kind)) bytes += step.bytesPerRank;
  return bytes;
}

std::string heatColour(double heat) {
  // From #fff3b0 to #c0281b in RGB.
  heat = std::clamp(heat, 0.0, 1.0);
  auto channel = [heat](int from, int to) { return static_cast<int>(std::lround(from + (to - from) * heat)); };
  return fmt::format("#{:02x}{:02x}{:02x}", channel(0xff, 0xc0), channel(0xf3, 0x28), channel(0xb0, 0x1b));
}

std::string usText(double us) { return fmt::format("{:.1f} us", us); }

}  // namespace reshardctl
