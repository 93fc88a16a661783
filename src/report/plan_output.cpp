#include "report/plan_output.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/json_export.h"
#include "report/result_json.h"
#include "reshard/placement.h"
#include "reshard/plan_alternatives.h"
#include "support/escape.h"
#include "support/text.h"

namespace reshardctl {

namespace {

using Json = nlohmann::ordered_json;

double roundedUs(double us) { return std::round(us * 1000.0) / 1000.0; }

std::string shapeText(const ReshardRequest& request) {
  std::vector<std::string> parts;
  for (int64_t extent : request.shape) parts.push_back(extent < 0 ? "?" : std::to_string(extent));
  parts.emplace_back(dtypeName(request.dtype));
  return fmt::format("{}", fmt::join(parts, "x"));
}

// Rows of cells printed as left-aligned columns two spaces apart.
std::string columns(const std::vector<std::vector<std::string>>& rows, const std::string& indent) {
  std::vector<size_t> widths;
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) {
      if (widths.size() <= i) widths.push_back(0);
      widths[i] = std::max(widths[i], row[i].size());
    }
  std::string text;
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t i = 0; i < row.size(); ++i)
      line += i + 1 == row.size() ? row[i] : fmt::format("{:<{}}  ", row[i], widths[i]);
    text += line + "\n";
  }
  return text;
}

// "1", "0+1" for a collective over the flattened group of mesh dims 0 and 1, "-".
std::string stepMeshDimText(const Step& step) {
  if (!step.meshDims.empty()) return fmt::format("{}", fmt::join(step.meshDims, "+"));
  return step.meshDim < 0 ? "-" : std::to_string(step.meshDim);
}

// A scale shows the change of type (SUM->AVG), the others the type they reduce or make.
std::string stepReduceText(const Step& step) {
  if (!step.reduce) return "-";
  const std::string_view to = reduceTypeName(*step.reduce);
  if (step.kind != StepKind::Scale) return std::string(to);
  return fmt::format("{}->{}", reduceTypeName(step.from.placements[static_cast<size_t>(step.meshDim)].reduce), to);
}

std::string stepTable(const Plan& plan) {
  std::vector<std::vector<std::string>> rows = {
      {"#", "step", "mesh dim", "tensor dim", "reduce", "groups", "bytes/rank", "after", "est us"}};
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step& step = plan.steps[i];
    rows.push_back({std::to_string(i + 1), std::string(stepKindName(step.kind)),
                    stepMeshDimText(step), stepTensorDimText(step),
                    stepReduceText(step), stepGroupsText(step),
                    std::to_string(step.bytesPerRank), placementsText(step.to.placements),
                    fmt::format("{:.2f}", step.estUs)});
  }
  return columns(rows, "  ");
}

std::string reportText(const ReshardReport& report) {
  std::string text = fmt::format("line {}: {} = dist_op.reshard({})  {}{}\n", report.line, report.result,
                                 report.input, shapeText(report.request),
                                 report.consumer.empty() ? "" : "  (for the op at input " + report.consumer + ")");
  if (!report.plan) return text + fmt::format("  no plan: {}\n", report.error);
  const Plan& plan = *report.plan;
  text += fmt::format("  src  {}\n  dst  {}\n", layoutText(plan.src), layoutText(plan.dst));
  if (plan.steps.empty()) return text + "  no steps: every rank already holds its piece\n";
  text += stepTable(plan);
  text += fmt::format("  estimated {:.2f} us{}{}\n", plan.estUs,
                      plan.shapeKnown ? "" : " (unknown dims counted as 1)",
                      plan.search == SearchKind::Exact ? "" : " (dim-by-dim search: too many layouts to search them all)");
  return text;
}

// --explain: the plans weighed against the chosen one, by the yardsticks the
// comparison uses, and why the chosen one won.
std::string alternativesText(const ReshardReport& report, const CostModel& costs) {
  if (!report.plan) return {};
  std::vector<PlanAlternative> alternatives;
  try {
    alternatives = planAlternatives(report.request, costs);
  } catch (const PlanError& error) {
    return fmt::format("  alternatives: none ({})\n", error.what());
  }
  std::vector<std::vector<std::string>> rows = {{"plan", "collectives", "bus bytes", "est us", "steps"}};
  for (const PlanAlternative& alternative : alternatives) {
    std::vector<std::string> kinds;
    for (const Step& step : alternative.plan.steps) kinds.emplace_back(stepKindName(step.kind));
    rows.push_back({alternative.name, std::to_string(alternative.measure.collectives),
                    fmt::format("{:.0f}", alternative.measure.busBytes), fmt::format("{:.2f}", alternative.measure.estUs),
                    kinds.empty() ? "-" : fmt::format("{}", fmt::join(kinds, ", "))});
  }
  return "  alternatives:\n" + columns(rows, "    ") + "  why: " + whyChosen(alternatives) + "\n";
}

std::string costModelText(const CostModel& costs) {
  std::vector<std::string> dims;
  for (size_t i = 0; i < costs.meshDims.size(); ++i)
    dims.push_back(fmt::format("mesh dim {}: {:g} GB/s, {:g} us/hop", i, costs.meshDims[i].bandwidthGBs,
                               costs.meshDims[i].latencyUs));
  dims.push_back(fmt::format("{}: {:g} GB/s, {:g} us/hop", costs.meshDims.empty() ? "every mesh dim" : "other dims",
                             costs.link.bandwidthGBs, costs.link.latencyUs));
  const std::string withinNode =
      costs.processesPerNode > 1 ? fmt::format(" (within a node of {} processes {:g} GB/s, {:g} us/hop)",
                                               costs.processesPerNode, costs.withinNode.bandwidthGBs,
                                               costs.withinNode.latencyUs)
                                 : std::string();
  return fmt::format("cost model: {}; between meshes {:g} GB/s, {:g} us{}; {:g} us per collective\n",
                     fmt::join(dims, "; "), costs.crossMesh.bandwidthGBs, costs.crossMesh.latencyUs, withinNode,
                     costs.launchUs);
}

Json optionalDim(int64_t dim) { return dim < 0 ? Json(nullptr) : Json(dim); }

Json stepJson(const Step& step) {
  Json placements = Json::array();
  for (const Placement& placement : step.to.placements) placements.push_back(placementText(placement));
  Json json = {{"kind", stepKindName(step.kind)},
          {"mesh_dim", optionalDim(step.meshDim)},
          {"reduce", step.reduce ? Json(reduceTypeName(*step.reduce)) : Json(nullptr)},
          {"tensor_dim", optionalDim(step.tensorDim)},
          {"from_tensor_dim", optionalDim(step.fromTensorDim)},
          {"groups", step.groups},
          {"bytes_per_rank", step.bytesPerRank},
          {"est_us", roundedUs(step.estUs)},
          {"placements", placements}};
  if (!step.meshDims.empty()) json["mesh_dims"] = step.meshDims;
  if (step.kind == StepKind::Scale) json["scale"] = step.scale;
  return json;
}

Json reportJson(const ReshardReport& report) {
  Json json = {{"line", report.line}, {"result", report.result}, {"input", report.input},
               {"shape", report.request.shape}, {"dtype", dtypeName(report.request.dtype)}};
  if (!report.plan) {
    json["error"] = report.error;
    return json;
  }
  const Plan& plan = *report.plan;
  json["src"] = layoutJson(plan.src, plan.shape.size());
  json["dst"] = layoutJson(plan.dst, plan.shape.size());
  json["steps"] = Json::array();
  for (const Step& step : plan.steps) json["steps"].push_back(stepJson(step));
  json["est_us"] = roundedUs(plan.estUs);
  json["shape_known"] = plan.shapeKnown;
  json["search"] = searchKindName(plan.search);
  return json;
}

Json linkJson(const LinkSpec& link) {
  return {{"bandwidth_gbs", link.bandwidthGBs}, {"latency_us", link.latencyUs}};
}

Json costModelJson(const CostModel& costs) {
  Json meshDims = Json::array();
  for (const LinkSpec& link : costs.meshDims) meshDims.push_back(linkJson(link));
  return {{"mesh_dims", meshDims},
          {"other_mesh_dims", linkJson(costs.link)},
          {"cross_mesh", linkJson(costs.crossMesh)},
          {"processes_per_node", costs.processesPerNode},
          {"within_node", linkJson(costs.withinNode)},
          {"launch_us", costs.launchUs},
          {"local_bandwidth_gbs", costs.localBandwidthGBs},
          {"local_launch_us", costs.localLaunchUs}};
}

// The document's members before "reshards".
Json planHeadJson(const PlanSource& source) {
  Json json = documentJson("plan");
  if (!source.file.empty()) json["source"] = source.file;
  json["lines"] = source.applied ? "applied" : "input";
  return json;
}

Json totalJson(const PlanTotals& sum) {
  return {{"reshards", sum.reshards}, {"steps", sum.steps}, {"est_us", roundedUs(sum.estUs)}};
}

PlanTotals totals(const std::vector<ReshardReport>& reports) {
  PlanTotals sum;
  for (const ReshardReport& report : reports) sum.add(report);
  return sum;
}

// One value on one line; bytes that are not UTF-8 (a file name, a label) become U+FFFD, as in every JSON we write.
std::string compact(const Json& value) { return value.dump(-1, ' ', false, Json::error_handler_t::replace); }

}  // namespace

std::string stepGroupsText(const Step& step) {
  std::vector<std::string> parts;
  for (const auto& group : step.groups)
    parts.push_back(step.kind == StepKind::SendRecv ? fmt::format("{}->{}", group[0], group[1])
                                                    : fmt::format("[{}]", fmt::join(group, ",")));
  return fmt::format("{}", fmt::join(parts, " "));
}

std::string stepTensorDimText(const Step& step) {
  const bool gathers = step.kind == StepKind::AllGather;
  if (step.meshDims.size() > 1 && (gathers || step.kind == StepKind::ReduceScatter)) {
    // A flattened collective splits or gathers one tensor dim per mesh dim.
    const Placements& split = gathers ? step.from.placements : step.to.placements;
    std::vector<int64_t> dims;
    for (int64_t meshDim : step.meshDims) dims.push_back(split[static_cast<size_t>(meshDim)].dim);
    return fmt::format("{}", fmt::join(dims, "+"));
  }
  if (step.kind == StepKind::AllToAll) return fmt::format("{}->{}", step.fromTensorDim, step.tensorDim);
  if (step.tensorDim >= 0) return std::to_string(step.tensorDim);
  if (step.fromTensorDim >= 0) return std::to_string(step.fromTensorDim);
  return "-";
}

Json layoutJson(const Layout& layout, size_t tensorRank) {
  Json json = tensorDistToJson(toDistAttr(layout, static_cast<int64_t>(tensorRank)));
  Json placements = Json::array();
  for (const Placement& placement : layout.placements) placements.push_back(placementText(placement));
  json["placements"] = std::move(placements);
  return json;
}

std::string planTotalText(const std::vector<ReshardReport>& reports) { return totals(reports).text(); }

PlanWriter::PlanWriter(OutputSink& out, PlanFormat format, const CostModel& costs, const PlanSource& source,
                       const PlanTableOptions& options)
    : out_(out), format_(format), costs_(costs), source_(source), options_(options) {
  if (format_ != PlanFormat::Json) return;
  const Json head = planHeadJson(source_);
  std::string text = "{";
  for (const auto& [key, value] : head.items()) text += fmt::format("\"{}\":{},", key, compact(value));
  out_.write(text + "\n\"reshards\":[");
}

void PlanWriter::add(const ReshardReport& report) {
  if (format_ == PlanFormat::Json) {
    out_.write((totals_.reshards == 0 ? "\n" : ",\n") + compact(reportJson(report)));
  } else {
    std::string text = reportText(report) + (options_.explain ? alternativesText(report, costs_) : "") + "\n";
    if (options_.terminal) escapeForTerminal(text);
    out_.write(text);
  }
  totals_.add(report);
}

void PlanWriter::finish() {
  if (format_ == PlanFormat::Json) {
    out_.write("\n],\n\"total\":" + compact(totalJson(totals_)) + ",\n\"cost_model\":" +
               compact(costModelJson(costs_)) + "}\n");
    return;
  }
  std::string text = "total: " + totals_.text() + "\n" + costModelText(costs_);
  if (source_.applied)
    text += "lines: of the program `reshardctl apply` prints (the input has no line for an inserted reshard)\n";
  if (options_.terminal) escapeForTerminal(text);
  out_.write(text);
}

namespace {

std::string writtenPlan(const std::vector<ReshardReport>& reports, PlanFormat format, const CostModel& costs,
                        const PlanSource& source, const PlanTableOptions& options) {
  OutputSink text;
  PlanWriter writer(text, format, costs, source, options);
  for (const ReshardReport& report : reports) writer.add(report);
  writer.finish();
  return text.take();
}

}  // namespace

std::string formatPlanTable(const std::vector<ReshardReport>& reports, const CostModel& costs,
                            const PlanSource& source, const PlanTableOptions& options) {
  return writtenPlan(reports, PlanFormat::Table, costs, source, options);
}

Json planJson(const std::vector<ReshardReport>& reports, const CostModel& costs, const PlanSource& source) {
  Json json = planHeadJson(source);
  json["reshards"] = Json::array();
  for (const ReshardReport& report : reports) json["reshards"].push_back(reportJson(report));
  json["total"] = totalJson(totals(reports));
  json["cost_model"] = costModelJson(costs);
  return json;
}

std::string planJsonText(const std::vector<ReshardReport>& reports, const CostModel& costs,
                         const PlanSource& source) {
  return writtenPlan(reports, PlanFormat::Json, costs, source, {});
}

}  // namespace reshardctl
