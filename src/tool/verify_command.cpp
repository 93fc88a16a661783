// `reshardctl verify`: read and check a program without writing it; the
// load-time errors plus the warnings of lint.h.
#include <cstdio>

#include "passes/lint.h"
#include "tool/commands.h"
#include "tool/program_io.h"

namespace reshardctl {

int runVerify(const VerifyOptions& options) {
  DiagnosticEngine diagnostics;
  LoadedProgram loaded = loadProgram(options.input, diagnostics, options.program);
  int status = loaded.failure;
  if (loaded.program) {
    size_t warnings = lintProgram(*loaded.program, diagnostics);
    if (options.werror && warnings > 0) status = kExitBadInput;
  }
  diagnostics.flush(stderr, !options.quiet);
  return status;
}

}  // namespace reshardctl
