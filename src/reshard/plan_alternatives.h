// The plans `plan --explain` weighs against the chosen one: Paddle's per-mesh-dim
// order, DTensor's order, and the plans that move the fewest bytes and make the
// fewest collectives (the exact search under a model of bandwidth only, and of
// latency only), each measured by the same yardsticks and priced by one model.
#pragma once

#include <string>
#include <vector>

#include "reshard/cost_model.h"
#include "reshard/plan.h"
#include "reshard/planner.h"

namespace reshardctl {

// What a plan costs by the yardsticks the comparison uses.
struct PlanMeasure {
  int64_t collectives = 0;  // communicating steps (send_recv counts one); local steps do not
  double busBytes = 0;      // the sum of the steps' bus bytes (cost_model.h's busBytes)
  double estUs = 0;         // by the model
};

PlanMeasure measurePlan(const Plan& plan, const CostModel& costs);

struct PlanAlternative {
  std::string name;  // "chosen", "paddle nd_mesh", "dtensor", "fewest bytes", "fewest collectives"
  Plan plan;
  PlanMeasure measure;
};

// The chosen plan (planMinCost) first, then each alternative that exists
// (DTensor's order does not between meshes), priced by `costs`. Work: three
// more plannings of the request.
std::vector<PlanAlternative> planAlternatives(const ReshardRequest& request, const CostModel& costs);

// Why the chosen plan won, one sentence: which alternative moves fewer bytes or
// makes fewer collectives, and what that costs by the model.
std::string whyChosen(const std::vector<PlanAlternative>& alternatives);

}  // namespace reshardctl
