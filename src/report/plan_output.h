// How `plan` shows its reports: a readable table per reshard with a total, or
// JSON for tools (`--json`).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/reshard_report.h"
#include "reshard/cost_model.h"
#include "support/output_sink.h"

namespace reshardctl {

// Which program the reports' line numbers count in: the input file, or (plan
// --apply) the program `apply` prints, whose lines the input does not have.
struct PlanSource {
  std::string file;      // the input as named; empty: leave "source" out
  bool applied = false;  // lines are those of the applied program
};

struct PlanTableOptions {
  // Under each reshard, the plans weighed against the chosen one
  // (plan_alternatives.h) with their collectives, bus bytes and estimates,
  // and why the chosen one won.
  bool explain = false;
  // Escaped for a terminal (support/escape.h's terminalText): names and
  // labels come from the input.
  bool terminal = false;
};

enum class PlanFormat { Table, Json };

// `plan`'s output written a reshard at a time, so that no report outlives
// its own lines (memory: one report, not the program's reshards): the table
// or JSON below, the same bytes as formatPlanTable and planJsonText.
class PlanWriter {
 public:
  // JSON: writes the document's head.
  PlanWriter(OutputSink& out, PlanFormat format, const CostModel& costs, const PlanSource& source = {},
             const PlanTableOptions& options = {});
  void add(const ReshardReport& report);
  // The total and the cost model.
  void finish();

 private:
  OutputSink& out_;
  const PlanFormat format_;
  const CostModel& costs_;
  const PlanSource source_;
  const PlanTableOptions options_;
  PlanTotals totals_;
};

// A table per reshard, the total and the cost model; for an applied
// program, a closing line that says whose lines the numbers are.
std::string formatPlanTable(const std::vector<ReshardReport>& reports, const CostModel& costs,
                            const PlanSource& source = {}, const PlanTableOptions& options = {});

// {"format":"reshardctl-plan","version":1,"source":FILE,"lines":"input"|"applied",
//  "reshards":[{"line":N,"result":"%9","input":"%8","shape":[..],"dtype":"f32",
//   "src":LAYOUT,"dst":LAYOUT,"steps":[{"kind":"all_reduce","mesh_dim":0,
//   "reduce":"SUM","tensor_dim":null,"from_tensor_dim":null,"groups":[[0,1]],
//   "bytes_per_rank":128,"est_us":..,"placements":[..after..]}],"est_us":..}],
//  "total":{"reshards":..,"steps":..,"est_us":..},"cost_model":{..}}
// (schema/plan.schema.json). LAYOUT is a distribution as everywhere
// (json_export.h: {"mesh":{"shape":[2],"process_ids":[0,1] or null},
// "dims_mapping":[..],"partial":[{"mesh_dim":0,"reduce":"SUM"}]}) plus
// "placements":["P(SUM)"]. Times are rounded to 1e-3 µs so that the output
// is stable.
nlohmann::ordered_json planJson(const std::vector<ReshardReport>& reports, const CostModel& costs,
                                const PlanSource& source = {});
// planJson as text: one reshard per line, so that files diff well.
std::string planJsonText(const std::vector<ReshardReport>& reports, const CostModel& costs,
                         const PlanSource& source = {});
// One layout as LAYOUT above (also `run --json`'s).
nlohmann::ordered_json layoutJson(const Layout& layout, size_t tensorRank);

// "2 reshards, 3 steps, estimated 15.60 us": the summary line of both outputs
// and of `apply --stats`.
std::string planTotalText(const std::vector<ReshardReport>& reports);

// A step's cells in the table: its groups ("[0,1] [2,3]", send_recv pairs
// "0->2 1->3") and its tensor dim ("1", all_to_all "0->1", "-" for none).
std::string stepGroupsText(const Step& step);
std::string stepTensorDimText(const Step& step);

}  // namespace reshardctl
