#include "tool/program_io.h"

#include "ir/verifier.h"
#include "syntax/parser.h"
#include "syntax/printer.h"
#include "tool/output_file.h"

namespace reshardctl {

LoadedProgram loadProgram(const std::string& path, DiagnosticEngine& diagnostics) {
  LoadedProgram loaded;
  std::string error;
  std::optional<SourceFile> source = SourceFile::load(path, &error);
  if (!source) {
    diagnostics.error(error);
    loaded.failure = kExitUsage;
    return loaded;
  }
  loaded.source = std::make_unique<SourceFile>(std::move(*source));
  diagnostics.setSource(loaded.source.get());
  if (loaded.source->text().size() >= (size_t{1} << 32)) {
    diagnostics.error("input larger than 4 GiB is not supported");
    loaded.failure = kExitBadInput;
    return loaded;
  }
  ParseResult parsed = parseProgram(*loaded.source, diagnostics);
  loaded.denselyNumbered = parsed.denselyNumbered;
  if (!parsed.program || !verifyProgram(*parsed.program, diagnostics)) {
    loaded.failure = kExitBadInput;
    return loaded;
  }
  loaded.program = std::move(parsed.program);
  return loaded;
}

int writeProgram(const Program& program, const std::string& path, DiagnosticEngine& diagnostics) {
  std::string error;
  std::optional<OutputFile> out = OutputFile::open(path, &error);
  if (!out) {
    diagnostics.error(error);
    return kExitUsage;
  }
  if (!printProgram(program, out->stream()) || !out->commit(&error)) {
    diagnostics.error(error.empty() ? "cannot write '" + path + "'" : error);
    return kExitUsage;
  }
  return kExitOk;
}

int writeTextOutput(const std::string& text, const std::string& path, DiagnosticEngine& diagnostics) {
  std::string error;
  std::optional<OutputFile> out = OutputFile::open(path, &error);
  if (!out) {
    diagnostics.error(error);
    return kExitUsage;
  }
  if (std::fwrite(text.data(), 1, text.size(), out->stream()) != text.size() || !out->commit(&error)) {
    diagnostics.error(error.empty() ? "cannot write '" + path + "'" : error);
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace reshardctl
