#include "tool/program_output.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>
#include <system_error>

#include "ir/stream_buffer.h"
#include "support/failure.h"
#include "support/output_file.h"
#include "syntax/printer.h"

namespace reshardctl {

namespace {

// writeOutput's render returned false: a write error, diagnosed as one. Not an
// exit code (those are 0, 1 and 2).
constexpr int kRenderFailed = -1;

using Put = std::function<bool(std::string_view)>;

// The log `loaded` came from, its program replaced, in three pieces through
// `put`: the lines before the program, `program` printed, the rest. (A whole
// file is `program` printed: its callers print it without this.)
bool putFileWithProgram(const Program& program, const LoadedProgram& loaded, const Put& put) {
  std::string_view text = loaded.source->text();
  // The text before the program holds its first line's prefix already.
  std::string printed = printProgramToString(program, PrinterOptions{.firstLinePrefix = false});
  // The closing line went on (`}  // end`): the rest follows the '}'.
  if (text[loaded.end - 1] != '\n')
    while (printed.back() == '\n' || printed.back() == '\r') printed.pop_back();
  return put(text.substr(0, loaded.begin)) && put(printed) && put(text.substr(loaded.end));
}

}  // namespace

int writeOutput(const std::string& path, DiagnosticEngine& diagnostics,
                const std::function<bool(OutputSink&)>& render) {
  return writeOutputUnlessFailed(path, diagnostics,
                                 [&](OutputSink& out) { return render(out) ? kExitOk : kRenderFailed; });
}

int writeOutputUnlessFailed(const std::string& path, DiagnosticEngine& diagnostics,
                            const std::function<int(OutputSink&)>& render) {
  std::string error;
  std::optional<OutputFile> out = OutputFile::open(path, &error);
  if (!out) {
    diagnostics.error(error);
    return kExitUsage;
  }
  // A failed write is known to the output file, with its reason; a render
  // that failed publishes nothing.
  const int rendered = render(out->sink());
  if (rendered == kExitOk && out->commit(&error)) return kExitOk;
  if (rendered != kExitOk) out->abandon(&error);
  if (rendered != kExitOk && rendered != kRenderFailed && !out->sink().failed()) return rendered;
  diagnostics.error(error.empty() ? "cannot write '" + path + "'" : error);
  return kExitUsage;
}

bool publishedWhole(const std::string& path) {
  // OutputFile writes /dev/stdout, /dev/fd/N and the like to the open descriptor.
  if (path == "-" || path.starts_with("/dev/") || path.starts_with("/proc/")) return false;
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  return !std::filesystem::exists(status) || std::filesystem::is_regular_file(status);
}

int writeTextOutput(const std::string& text, const std::string& path, DiagnosticEngine& diagnostics) {
  return writeOutput(path, diagnostics, [&](OutputSink& out) {
    out.write(text);
    return !out.failed();
  });
}

int writeProgram(const Program& program, const std::string& path, DiagnosticEngine& diagnostics) {
  return writeOutput(path, diagnostics, [&](OutputSink& out) { return printProgram(program, out); });
}

// The printed text is written while the graph is still held: the 16 MiB a
// read stream keeps in memory before spilling came on top of it (apply
// --diff's peak on the varied 100k-op bench program: 78 MB, 1.85 times its
// input; spilled past 1 MiB: 63.5 MB, 1.50, as `apply` alone). A program of
// 1 MiB or less stays in memory.
constexpr size_t kPrintedSpillAfter = size_t{1} << 20;

SourceFile fileWithProgram(const Program& program, const LoadedProgram& loaded) {
  auto text = std::make_unique<StreamBuffer>(kPrintedSpillAfter);
  std::string error;
  bool written = true;
  auto put = [&](std::string_view piece) { return written = written && text->append(piece, &error); };
  if (loaded.wholeFile()) {
    OutputSink sink([&](std::string_view piece) { put(piece); });
    printProgram(program, sink);
  } else {
    putFileWithProgram(program, loaded, put);
  }
  std::optional<SourceFile> file = written ? SourceFile::fromStream(loaded.source->name(), std::move(text)) : std::nullopt;
  if (!file) {
    if (error.empty()) error = std::strerror(errno);
    throw Failure(FailureKind::Io, "cannot hold the printed program of '" + loaded.source->name() + "': " + error);
  }
  return std::move(*file);
}

int writeProgramInPlace(const Program& program, const LoadedProgram& loaded, const std::string& path,
                        DiagnosticEngine& diagnostics) {
  // A whole file is printed straight to the output, not through a string.
  if (loaded.wholeFile()) return writeProgram(program, path, diagnostics);
  return writeOutput(path, diagnostics, [&](OutputSink& out) {
    return putFileWithProgram(program, loaded, [&out](std::string_view piece) {
      out.write(piece);
      return !out.failed();
    });
  });
}

}  // namespace reshardctl
