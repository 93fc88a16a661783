// `reshardctl print`: read → verify → print (a canonical reprint, or JSON).
#include <cstdio>

#include "report/json_export.h"
#include "tool/commands.h"
#include "tool/output_file.h"
#include "tool/program_io.h"

namespace reshardctl {

namespace {

// JSON goes through the same atomic OutputFile as the dump.
int writeJson(const LoadedProgram& loaded, const std::string& path, DiagnosticEngine& diagnostics) {
  std::string text = dumpJson(programToJson(*loaded.program, loaded.source.get()));
  std::string error;
  std::optional<OutputFile> out = OutputFile::open(path, &error);
  if (out && std::fwrite(text.data(), 1, text.size(), out->stream()) == text.size() &&
      out->commit(&error))
    return kExitOk;
  diagnostics.error(error.empty() ? "cannot write '" + path + "'" : error);
  return kExitUsage;
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
