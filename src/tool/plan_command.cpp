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

// The plan of one loaded program written to `out` a reshard at a time, or
// false with its diagnostics when the pass failed or a reshard has no plan.
bool writePlan(LoadedProgram& loaded, const PlanOptions& options, DiagnosticEngine& diagnostics, OutputSink& out) {
  const PlanSource source{loaded.source->name(), options.apply};
  PlanWriter writer(out, options.json ? PlanFormat::Json : PlanFormat::Table, options.costs, source,
                    PlanTableOptions{.explain = options.explain, .terminal = !options.json});
  if (!forEachLoadedReshard(*loaded.program, *loaded.source, options.apply ? &options.pass : nullptr, options.costs,
                            diagnostics, [&](const ReshardReport& report) { writer.add(report); }))
    return false;
  writer.finish();
  return true;
}

// Tables one after another, each under its input's name when there are
// several (as list writes them). Nothing is shown unless every input was
// planned: into a file (published whole: program_output.h) each reshard is
// written as it is planned, so memory is one report; to standard output, a
// fifo or a device the text is held until the end (the reports are not).
int runPlan(const PlanOptions& options, Reporter& reporter) {
  const std::vector<std::string> files = expandInputs(options.inputs, reporter);
  if (options.json && (files.size() > 1 || options.inputs.recursive))
    throw Failure(FailureKind::Usage, "--json takes one input (one JSON document); several inputs give tables");
  DiagnosticEngine output = reporter.engine();
  const int status = writeOutputUnlessFailed(options.output, output, [&](OutputSink& destination) {
    OutputSink held;
    OutputSink& out = publishedWhole(options.output) ? destination : held;
    bool first = true;
    const int run = forEachInput(files, options.inputs, reporter, standardError, [&](const InputProgram& input) {
      DiagnosticEngine diagnostics = reporter.engine();
      LoadedProgram loaded = loadProgram(input, diagnostics);
      if (loaded.program && input.oneOfSeveral) {
        out.write(std::string(first ? "" : "\n") + terminalLine(input.name) + ":\n");
        first = false;
      }
      const int outcome = !loaded.program                                  ? loaded.failure
                          : writePlan(loaded, options, diagnostics, out) ? kExitOk
                                                                           : kExitBadInput;
      reporter.report(diagnostics);
      return InputOutcome{outcome, ""};
    }).status;
    if (run == kExitOk && &out == &held) destination.write(held.view());
    return run;
  });
  reporter.report(output);
  return status;
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
