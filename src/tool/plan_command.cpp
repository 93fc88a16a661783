// `reshardctl plan`: read (→ partition pass with --apply) → plan every
// dist_op.reshard → a table or JSON.
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "passes/partition_pass.h"
#include "report/plan_output.h"
#include "report/reshard_report.h"
#include "reshard/cost_model.h"
#include "support/escape.h"
#include "tool/cli.h"
#include "tool/cli_support.h"
#include "tool/input_files.h"
#include "tool/program_output.h"
#include "tool/reporting.h"

namespace reshardctl {

namespace {

struct PlanOptions {
  std::string input = "-";
  std::string output = "-";
  std::string program;  // --program N|TEXT: which program of a file holding several (input_files.h)
  bool json = false;
  bool apply = false;  // run the partition pass first and plan what it inserts
  PartitionOptions pass;  // the partition pass's switches
  CostModel costs;
};

int planLoaded(LoadedProgram& loaded, const PlanOptions& options, DiagnosticEngine& diagnostics) {
  std::vector<ReshardReport> reports;
  if (!reportLoadedReshards(*loaded.program, *loaded.source, options.apply ? &options.pass : nullptr, options.costs,
                            diagnostics, &reports))
    return kExitBadInput;
  const PlanSource source{loaded.source->name(), options.apply};
  std::string text = options.json ? planJsonText(reports, options.costs, source)
                                  : formatPlanTable(reports, options.costs, source);
  if (!options.json) escapeForTerminal(text);
  return writeTextOutput(text, options.output, diagnostics);
}

int runPlan(const PlanOptions& options, Reporter& reporter) {
  DiagnosticEngine diagnostics = reporter.engine();
  LoadedProgram loaded = loadProgram(options.input, diagnostics, options.program);
  const int status = loaded.program ? planLoaded(loaded, options, diagnostics) : loaded.failure;
  reporter.report(diagnostics);
  return status;
}

SubcommandRunner definePlan(CLI::App& command, ReportingOptions& reporting) {
  auto flags = std::make_shared<WithCostFlags<PlanOptions>>();
  PlanOptions& plan = flags->options;
  addInputOutput(command, plan.input, plan.output);
  addProgramOption(command, plan.program);
  command.add_flag("--json", plan.json, "Write JSON instead of a table (schema/plan.schema.json)");
  command.add_flag("--apply", plan.apply,
                   "Run the partition pass first and plan the reshards it inserts (lines are then those of "
                   "the program apply prints)");
  addPartitionFlags(command, plan.pass);
  addCostModelFlags(command, plan.costs, flags->costs);
  addReportingFlags(command, reporting);
  command.footer(fmt::format("Exit status: 0 planned, 1 bad input or a reshard without a plan, {}.", kUsageExit));
  return runnerWithCosts(flags, runPlan);
}

}  // namespace

const SubcommandSpec kPlanSubcommand{"plan",
                                     "Plan every dist_op.reshard: the collectives on which groups of ranks, the "
                                     "bytes they move and the estimated time (min-cost search under an alpha-beta "
                                     "model)",
                                     definePlan};

}  // namespace reshardctl
