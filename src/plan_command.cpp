// `reshardctl plan`: read (→ partition pass with --apply) → plan every
// dist_op.reshard → a table or JSON.
#include <cstdio>

#include <fmt/format.h>

#include "commands.h"
#include "output_file.h"
#include "partition_pass.h"
#include "plan_output.h"
#include "printer.h"
#include "program_io.h"
#include "reshard_report.h"

namespace reshardctl {

namespace {

// Where to point a diagnostic about a reshard: its own line, or for one a pass
// inserted (it has no place in the input) the line of the op that uses it.
size_t diagnosticOffset(const Operation& reshard) {
  if (reshard.location() != 0) return reshard.location();
  const Operand* use = reshard.result(0)->firstUse;
  return use ? use->owner()->location() : 0;
}

bool reportUnplannable(const std::vector<ReshardReport>& reports, DiagnosticEngine& diagnostics) {
  bool ok = true;
  for (const ReshardReport& report : reports) {
    if (report.plan) continue;
    diagnostics.error(diagnosticOffset(*report.op), 1,
                      fmt::format("cannot plan the reshard of {}: {}", report.input, report.error));
    ok = false;
  }
  return ok;
}

int writeText(const std::string& text, const std::string& path, DiagnosticEngine& diagnostics) {
  std::string error;
  std::optional<OutputFile> out = OutputFile::open(path, &error);
  if (!out) {
    diagnostics.error(error);
    return kExitUsage;
  }
  if (std::fwrite(text.data(), 1, text.size(), out->stream()) != text.size() || !out->commit(&error)) {
    diagnostics.error(error.empty() ? "cannot write '" + path + "'" : error);
    return kExitUsage;
  }
  return kExitOk;
}

int planLoaded(LoadedProgram& loaded, const PlanOptions& options, DiagnosticEngine& diagnostics) {
  Program& program = *loaded.program;
  LineOf lineOf = sourceLines(*loaded.source);
  if (options.apply) {
    PartitionOptions pass;
    pass.splitCrossMesh = options.splitCrossMesh;
    pass.fold = options.fold;
    pass.dedupe = options.dedupe;
    pass.reshardResults = options.reshardResults;
    if (!applyPartitionPass(program, diagnostics, pass).ok) return kExitBadInput;
    lineOf = printedLines(program, printProgramToString(program));  // the reshards are new lines
  }
  const std::vector<ReshardReport> reports = planProgramReshards(program, options.costs, lineOf);
  if (!reportUnplannable(reports, diagnostics)) return kExitBadInput;
  const std::string text = options.json ? planJsonText(reports, options.costs)
                                        : formatPlanTable(reports, options.costs);
  return writeText(text, options.output, diagnostics);
}

}  // namespace

int runPlan(const PlanOptions& options) {
  DiagnosticEngine diagnostics;
  LoadedProgram loaded = loadProgram(options.input, diagnostics);
  const int status = loaded.program ? planLoaded(loaded, options, diagnostics) : loaded.failure;
  diagnostics.flush(stderr);
  return status;
}

}  // namespace reshardctl
