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
    PartitionResult result = applyPartitionPass(*loaded.program, diagnostics);
    status = result.ok ? writeProgram(*loaded.program, options.output, diagnostics) : kExitBadInput;
  }
  diagnostics.flush(stderr);
  return status;
}

}  // namespace reshardctl
