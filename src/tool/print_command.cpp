// `reshardctl print`: read → verify → print (a canonical reprint, JSON, or
// one of the views of src/view/: brief, dot, html).
#include <cstdio>

#include "report/json_export.h"
#include "tool/commands.h"
#include "tool/output_file.h"
#include "tool/program_io.h"
#include "view/brief_view.h"
#include "view/dot_view.h"
#include "view/html_page.h"

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

bool isView(const std::string& emit) { return emit == "brief" || emit == "dot" || emit == "html"; }

// Flags that mean nothing for the chosen output: bad usage, said before reading.
std::string usageProblem(const PrintOptions& options, const std::string& emit) {
  if (options.brief && options.emit != "ir" && options.emit != "brief")
    return "--brief cannot be combined with --emit=" + options.emit;
  if (!isView(emit) && (!options.focus.empty() || !options.shownAttributes.empty()))
    return "--focus and --show-attr apply to the views (--brief, --emit=dot, --emit=html)";
  if (emit != "html" && !options.compare.empty()) return "--compare applies to --emit=html";
  return "";
}

// The html page of the input, beside the program `--compare` names.
int writeHtmlView(ViewContext& view, const OpSelection& selection, const PrintOptions& options,
                  DiagnosticEngine& diagnostics) {
  HtmlOptions html;
  html.shownAttributes = options.shownAttributes;
  html.maxOps = options.maxOps;
  if (options.compare.empty()) return writeTextOutput(writeHtml(view, selection, html), options.output, diagnostics);
  DiagnosticEngine beforeDiagnostics;
  LoadedProgram before = loadProgram(options.compare, beforeDiagnostics);
  beforeDiagnostics.flush(stderr);
  if (!before.program) return before.failure;
  ViewContext beforeView(*before.program, *before.source, options.costs);
  html.before = &beforeView;
  return writeTextOutput(writeHtml(view, selection, html), options.output, diagnostics);
}

int writeView(const LoadedProgram& loaded, const PrintOptions& options, const std::string& emit,
              DiagnosticEngine& diagnostics) {
  ViewContext view(*loaded.program, *loaded.source, options.costs);
  OpSelection selection = OpSelection::all(view.ops);
  if (!options.focus.empty()) {
    std::string error;
    std::optional<OpSelection> around = selectNeighbourhood(view, options.focus, options.depth, &error);
    if (!around) {
      diagnostics.error(error);
      return kExitUsage;
    }
    selection = std::move(*around);
  }
  if (emit == "brief")
    return writeTextOutput(writeBrief(view, selection, options.shownAttributes), options.output, diagnostics);
  if (emit == "dot") return writeTextOutput(writeDot(view, selection), options.output, diagnostics);
  return writeHtmlView(view, selection, options, diagnostics);
}

}  // namespace

int runPrint(const PrintOptions& options) {
  DiagnosticEngine diagnostics;
  const std::string emit = options.brief ? "brief" : options.emit;
  if (const std::string problem = usageProblem(options, emit); !problem.empty()) {
    diagnostics.error(problem);
    diagnostics.flush(stderr);
    return kExitUsage;
  }
  LoadedProgram loaded = loadProgram(options.input, diagnostics, options.program);
  int status = loaded.failure;
  if (loaded.program) {
    if (emit == "json") status = writeJson(loaded, options.output, diagnostics);
    else if (isView(emit)) status = writeView(loaded, options, emit, diagnostics);
    else status = writeProgram(*loaded.program, options.output, diagnostics);
  }
  diagnostics.flush(stderr);
  return status;
}

}  // namespace reshardctl
