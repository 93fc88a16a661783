// `reshardctl print`: read → verify → print (a canonical reprint, or JSON),
// every input one after another into one output.
#include <cstdio>

#include "report/json_export.h"
#include "syntax/printer.h"
#include "tool/commands.h"
#include "tool/output_file.h"
#include "tool/program_io.h"

namespace reshardctl {

namespace {

bool printLoaded(const LoadedProgram& loaded, const std::string& emit, std::FILE* out) {
  if (emit != "json") return printProgram(*loaded.program, out);
  const std::string text = dumpJson(programToJson(*loaded.program, loaded.source.get()));
  return std::fwrite(text.data(), 1, text.size(), out) == text.size();
}

}  // namespace

int runPrint(const PrintOptions& options, Reporter& reporter) {
  std::vector<std::string> files;
  if (!expandInputs(options.inputs, reporter, &files)) return kExitUsage;
  // One output for all inputs, published only when every one printed.
  std::string error;
  std::optional<OutputFile> out = OutputFile::open(options.output, &error);
  if (!out) {
    reporter.toolError(error);
    return kExitUsage;
  }
  int status = forEachFile(files, reporter, stderr, [&](const std::string& path) {
    DiagnosticEngine diagnostics = reporter.engine();
    LoadedProgram loaded = loadProgram(path, diagnostics);
    int fileStatus = loaded.failure;
    if (loaded.program && !printLoaded(loaded, options.emit, out->stream())) {
      diagnostics.error("cannot write '" + options.output + "'");
      fileStatus = kExitUsage;
    }
    reporter.report(diagnostics);
    return InputOutcome{fileStatus, fileStatus == kExitOk ? "ok" : "failed"};
  });
  if (status == kExitOk && !out->commit(&error)) {
    reporter.toolError(error.empty() ? "cannot write '" + options.output + "'" : error);
    status = kExitUsage;
  }
  return status;
}

}  // namespace reshardctl
