// `reshardctl apply`: read → partition pass → print (or, with --check, list
// what the pass would insert and write nothing).
#include <cstdio>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "passes/check_report.h"
#include "passes/partition_pass.h"
#include "report/plan_output.h"
#include "report/reshard_report.h"
#include "syntax/printer.h"
#include "tool/commands.h"
#include "tool/program_io.h"

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

// As formatters' --check: 0 when the pass would change nothing, 1 when it would.
int reportCheck(const LoadedProgram& loaded, const PartitionResult& result, const ValueNames& names) {
  if (result.inserted.empty()) return kExitOk;
  std::string report =
      describeInsertedReshards(result, names, *loaded.source, loaded.program->generation());
  std::fwrite(report.data(), 1, report.size(), stdout);
  return std::fflush(stdout) == 0 ? kExitBadInput : kExitUsage;
}

}  // namespace

int runApply(const ApplyOptions& options) {
  DiagnosticEngine diagnostics;
  if (options.inPlace && options.input == "-") {
    diagnostics.error("--in-place needs an input file, not standard input");
    diagnostics.flush(stderr);
    return kExitUsage;
  }
  LoadedProgram loaded = loadProgram(options.input, diagnostics, options.program);
  int status = loaded.failure;
  if (loaded.program) {
    // --check names operands as the input does: number before the pass renumbers.
    std::optional<ValueNames> names;
    if (options.check) names.emplace(*loaded.program);
    PartitionResult result = applyPartitionPass(*loaded.program, diagnostics, options.pass);
    if (!result.ok) status = kExitBadInput;
    else if (options.check) status = reportCheck(loaded, result, *names);
    else if (options.inPlace) status = writeProgramInPlace(*loaded.program, loaded, options.input, diagnostics);
    else status = writeProgram(*loaded.program, options.output, diagnostics);
    if (status == kExitOk && options.stats) printStats(*loaded.program, result, options.costs);
  }
  diagnostics.flush(stderr);
  return status;
}

}  // namespace reshardctl
