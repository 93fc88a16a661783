// `reshardctl print`: read → verify → print (a canonical reprint).
#include <cstdio>

#include "commands.h"
#include "program_io.h"

namespace reshardctl {

int runPrint(const PrintOptions& options) {
  DiagnosticEngine diagnostics;
  LoadedProgram loaded = loadProgram(options.input, diagnostics);
  int status = loaded.failure;
  if (loaded.program) status = writeProgram(*loaded.program, options.output, diagnostics);
  diagnostics.flush(stderr);
  return status;
}

}  // namespace reshardctl
