// `reshardctl apply`: read → partition pass → print (or, with --check, list
// what the pass would insert and write nothing).
#include <cstdio>
#include <optional>

#include "commands.h"
#include "partition_pass.h"
#include "printer.h"
#include "program_io.h"
#include "reshard_report.h"

namespace reshardctl {

namespace {

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
  LoadedProgram loaded = loadProgram(options.input, diagnostics);
  int status = loaded.failure;
  if (loaded.program) {
    // --check names operands as the input does: number before the pass renumbers.
    std::optional<ValueNames> names;
    if (options.check) names.emplace(*loaded.program);
    PartitionResult result = applyPartitionPass(*loaded.program, diagnostics);
    if (!result.ok) status = kExitBadInput;
    else if (options.check) status = reportCheck(loaded, result, *names);
    else status = writeProgram(*loaded.program, options.inPlace ? options.input : options.output,
                               diagnostics);
  }
  diagnostics.flush(stderr);
  return status;
}

}  // namespace reshardctl
