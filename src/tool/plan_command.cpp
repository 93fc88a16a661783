// `reshardctl plan`: read (→ partition pass with --apply) → plan every
// dist_op.reshard → a table or JSON.
#include <algorithm>
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "passes/partition_pass.h"
#include "report/plan_output.h"
#include "report/reshard_report.h"
#include "reshard/cost_model.h"
#include "support/escape.h"
#include "support/failure.h"
#include "tool/cli.h"
#include "tool/cli_support.h"
#include "tool/input_files.h"
#include "tool/program_output.h"
#include "tool/reporting.h"

namespace reshardctl {

namespace {

struct PlanOptions {
  InputSelection inputs;  // several (or -r): a table for each, one after another
  std::string output = "-";
  bool json = false;  // one input only
  bool explain = false;  // the table with each reshard's alternatives
  bool apply = false;  // run the partition pass first and plan what it inserts
  PartitionOptions pass;  // the partition pass's switches
  CostModel costs;
};

// The plan of one loaded program as text (a table or JSON), or false with its
// diagnostics when the pass failed or a reshard has no plan.
bool planText(LoadedProgram& loaded, const PlanOptions& options, DiagnosticEngine& diagnostics, std::string* text) {
  std::vector<ReshardReport> reports;
  if (!reportLoadedReshards(*loaded.program, *loaded.source, options.apply ? &options.pass : nullptr, options.costs,
                            diagnostics, &reports))
    return false;
  const PlanSource source{loaded.source->name(), options.apply};
  *text = options.json ? planJsonText(reports, options.costs, source) : formatPlanTable(reports, options.costs, source, {options.explain});
  if (!options.json) escapeForTerminal(*text);
  return true;
}

int runPlan(const PlanOptions& options, Reporter& reporter) {
  const std::vector<std::string> files = expandInputs(options.inputs, reporter);
  if (options.json && (files.size() > 1 || options.inputs.recursive))
    throw Failure(FailureKind::Usage, "--json takes one input (one JSON document); several inputs give tables");
  // Tables one after another, each under its input's name when there are several (as list writes them).
  std::string tables;
  const InputRun run = forEachInput(files, options.inputs, reporter, standardError, [&](const InputProgram& input) {
    DiagnosticEngine diagnostics = reporter.engine();
    LoadedProgram loaded = loadProgram(input, diagnostics);
    std::string text;
    const int status = !loaded.program                                  ? loaded.failure
                       : planText(loaded, options, diagnostics, &text) ? kExitOk
                                                                         : kExitBadInput;
    reporter.report(diagnostics);
    if (status == kExitOk && input.oneOfSeveral)
      tables += (tables.empty() ? "" : "\n") + terminalLine(input.name) + ":\n";
    tables += text;
    return InputOutcome{status, ""};
  });
  // Written only when every input was planned: a failing run leaves an earlier output as it was.
  if (run.status != kExitOk || run.programs == 0) return run.status;
  DiagnosticEngine diagnostics = reporter.engine();
  const int written = writeTextOutput(tables, options.output, diagnostics);
  reporter.report(diagnostics);
  return std::max(run.status, written);
}

SubcommandRunner definePlan(CLI::App& command, ReportingOptions& reporting) {
  auto flags = std::make_shared<WithCostFlags<PlanOptions>>();
  PlanOptions& plan = flags->options;
  addInputsOutputProgram(command, plan.inputs, plan.output);
  command.add_flag("--json", plan.json, "Write JSON instead of a table (schema/plan.schema.json)");
  command.add_flag("--explain", plan.explain,
                   "Under each reshard, the plans weighed against the chosen one (Paddle's nd_mesh order, "
                   "DTensor's order, the fewest bytes, the fewest collectives) with their collectives, bus bytes "
                   "and estimates, and why the chosen one won")
      ->excludes(command.get_option("--json"));
  command.add_flag("--apply", plan.apply,
                   "Run the partition pass first and plan the reshards it inserts (lines are then those of "
                   "the program apply prints)");
  addPartitionFlags(command, plan.pass);
  addCostModelFlags(command, plan.costs, flags->costs);
  addReportingFlags(command, reporting);
  command.footer(fmt::format("Several inputs (or -r): a table for each, under its name (FILE#N for a log's "
                             "programs). {}\nExit status: 0 planned, 1 bad input or a reshard without a plan, {}.",
                             kSeveralInputs, kUsageExit));
  return runnerWithCosts(flags, runPlan);
}

}  // namespace

const SubcommandSpec kPlanSubcommand{"plan",
                                     "Plan every dist_op.reshard: the collectives on which groups of ranks, the "
                                     "bytes they move and the estimated time (min-cost search under an alpha-beta "
                                     "model)",
                                     definePlan};

}  // namespace reshardctl
