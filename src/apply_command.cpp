// `reshardctl apply`: read → partition pass → print.
#include <cstdio>
#include <set>

#include <fmt/format.h>

#include "commands.h"
#include "partition_pass.h"
#include "plan_output.h"
#include "program_io.h"
#include "reshard_report.h"

namespace reshardctl {

namespace {

// `--stats`: how many reshards the pass inserted and what their plans cost.
// Only those still in the program count: folding may erase some again.
void printStats(const Program& program, const PartitionResult& result, const CostModel& costs) {
  const std::set<const Operation*> inserted(result.inserted.begin(), result.inserted.end());
  std::vector<Operation*> kept;
  walkOps(*program.body(), [&](Operation* op) {
    if (inserted.count(op) != 0) kept.push_back(op);
  });
  const std::vector<ReshardReport> reports =
      planReshardOps(program, kept, costs, [](const Operation&) { return size_t{0}; });
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
    PartitionOptions pass;
    pass.splitCrossMesh = options.splitCrossMesh;
    pass.fold = options.fold;
    pass.dedupe = options.dedupe;
    pass.reshardResults = options.reshardResults;
    PartitionResult result = applyPartitionPass(*loaded.program, diagnostics, pass);
    status = result.ok ? writeProgram(*loaded.program, options.output, diagnostics) : kExitBadInput;
    if (status == kExitOk && options.stats) printStats(*loaded.program, result, options.costs);
  }
  diagnostics.flush(stderr);
  return status;
}

}  // namespace reshardctl
