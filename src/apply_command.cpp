// `reshardctl apply`: read → partition pass → print.
#include <cstdio>

#include "commands.h"
#include "partition_pass.h"
#include "program_io.h"

namespace reshardctl {

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
  }
  diagnostics.flush(stderr);
  return status;
}

}  // namespace reshardctl
