// `reshardctl apply`: read → partition pass → print.
#include <cstdio>

#include <fmt/format.h>

#include "commands.h"
#include "partition_pass.h"
#include "plan_output.h"
#include "program_io.h"
#include "reshard_report.h"

namespace reshardctl {

namespace {

// `--stats`: how many reshards the pass inserted and what their plans cost.
void printStats(const Program& program, const PartitionResult& result, const CostModel& costs) {
  const std::vector<ReshardReport> reports =
      planReshardOps(program, result.inserted, costs, [](const Operation&) { return size_t{0}; });
  size_t unplanned = 0;
  for (const ReshardReport& report : reports) unplanned += report.plan ? 0 : 1;
  std::fprintf(stderr, "apply: inserted %s%s\n", planTotalText(reports).c_str(),
               unplanned == 0 ? "" : fmt::format(" ({} could not be planned)", unplanned).c_str());
}

}  // namespace

int runApply(const ApplyOptions& options) {
  DiagnosticEngine diagnostics;
  LoadedProgram loaded = loadProgram(options.input, diagnostics);
  int status = loaded.failure;
  if (loaded.program) {
    PartitionResult result = applyPartitionPass(*loaded.program, diagnostics);
    status = result.ok ? writeProgram(*loaded.program, options.output, diagnostics) : kExitBadInput;
    if (status == kExitOk && options.stats) printStats(*loaded.program, result, options.costs);
  }
  diagnostics.flush(stderr);
  return status;
}

}  // namespace reshardctl
