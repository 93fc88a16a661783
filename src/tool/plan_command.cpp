// `reshardctl plan`: read (→ partition pass with --apply) → plan every
// dist_op.reshard → a table or JSON.
#include <cstdio>

#include <fmt/format.h>

#include "report/plan_output.h"
#include "report/reshard_report.h"
#include "support/escape.h"
#include "tool/commands.h"
#include "tool/program_io.h"

namespace reshardctl {

namespace {

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

}  // namespace

int runPlan(const PlanOptions& options, Reporter& reporter) {
  DiagnosticEngine diagnostics = reporter.engine();
  LoadedProgram loaded = loadProgram(options.input, diagnostics, options.program);
  const int status = loaded.program ? planLoaded(loaded, options, diagnostics) : loaded.failure;
  reporter.report(diagnostics);
  return status;
}

}  // namespace reshardctl
