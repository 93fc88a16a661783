// Every dist_op.reshard of a program, planned once under `plan`'s cost model
// (report/reshard_report.h, the same flags), found by op, with what the
// views derive from the plans: a heat from 0 (free) to 1 (the dearest reshard
// of the program) that sets a reshard's colour and width, and totals per mesh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"
#include "ir/source.h"
#include "report/reshard_report.h"
#include "reshard/cost_model.h"

namespace reshardctl {

// The reshards of one mesh ("mesh[2](0,1)"), or of one pair of meshes for
// reshards between meshes ("mesh[2](0,1) -> mesh[2](2,3)").
struct MeshCostTotal {
  std::string meshes;
  size_t reshards = 0;
  size_t steps = 0;
  int64_t bytes = 0;  // communication bytes per rank, summed over steps
  double estUs = 0;
};

// What the views show of one reshard: its plan (shared by every reshard of
// the same request, planner.h) or why it has none, and its line. Its values'
// names come from the view's labels; the request and the names a
// ReshardReport carries are dropped as each is planned (~1 KB a reshard:
// 20 MB of `print --brief`'s peak on the varied 100k-op bench program).
struct ReshardCost {
  const Operation* op = nullptr;
  size_t line = 0;
  std::shared_ptr<const Plan> plan;
  std::string error;  // why there is no plan
};

class ReshardCosts {
 public:
  ReshardCosts(const Program& program, const SourceFile& source, const CostModel& costs);

  const std::vector<ReshardCost>& reports() const { return reports_; }
  const ReshardCost* of(const Operation& op) const;  // nullptr: not a reshard
  // estUs over the program's dearest reshard; 0 without a plan.
  double heat(const ReshardCost& report) const;
  double totalUs() const { return totalUs_; }
  double maxUs() const { return maxUs_; }
  // In order of first appearance.
  std::vector<MeshCostTotal> perMesh() const;

 private:
  std::vector<ReshardCost> reports_;
  std::unordered_map<const Operation*, size_t> byOp_;
  double totalUs_ = 0;
  double maxUs_ = 0;
};

// The bytes per rank a plan's communication steps move (local steps move none).
int64_t communicationBytes(const Plan& plan);

// The colour of a heat: pale yellow (0) to deep red (1), "#rrggbb".
std::string heatColour(double heat);

// "7.8 us" (one decimal, as the brief view prints costs).
std::string usText(double us);

}  // namespace reshardctl
