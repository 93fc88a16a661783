// `reshardctl print`: read → verify → print (a canonical reprint, or JSON).
#include <cstdio>

#include "report/json_export.h"
#include "tool/commands.h"
#include "tool/program_io.h"

namespace reshardctl {

namespace {

// JSON goes through the same atomic OutputFile as the dump.
int writeJson(const LoadedProgram& loaded, const std::string& path, DiagnosticEngine& diagnostics) {
  return writeOutput(path, diagnostics, [&](std::FILE* out) {
    return writeProgramJson(*loaded.program, loaded.source.get(), out);
  });
}

}  // namespace

int runPrint(const PrintOptions& options) {
  DiagnosticEngine diagnostics;
  LoadedProgram loaded = loadProgram(options.input, diagnostics, options.program);
  int status = loaded.failure;
  if (loaded.program) {
    status = options.emit == "json" ? writeJson(loaded, options.output, diagnostics)
                                    : writeProgram(*loaded.program, options.output, diagnostics);
  }
  diagnostics.flush(stderr);
  return status;
}

}  // namespace reshardctl
