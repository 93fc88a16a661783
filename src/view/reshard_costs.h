// Every dist_op.reshard of a program, planned once under `plan`'s cost model
// (report/reshard_report.h, the same flags), found by op, with what the
// views derive from the plans: a heat from 0 (free) to 1 (the dearest reshard
// of the program) that sets a reshard's colour and width, and totals per mesh.
#pragma once

#include <cstddef>
#include <cstdint>
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

class ReshardCosts {
 public:
  ReshardCosts(const Program& program, const SourceFile& source, const CostModel& costs);

  const std::vector<ReshardReport>& reports() const { return reports_; }
  const ReshardReport* of(const Operation& op) const;  // nullptr: not a reshard
  // estUs over the program's dearest reshard; 0 without a plan.
  double heat(const ReshardReport& report) const;
  double totalUs() const { return totalUs_; }
  double maxUs() const { return maxUs_; }
  // In order of first appearance.
  std::vector<MeshCostTotal> perMesh() const;

 private:
  std::vector<ReshardReport> reports_;
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
