// `reshardctl print`: read → verify → print (a canonical reprint, JSON, or
// one of the views of src/view/: brief, dot, html), every input one after
// another into one output (html: one input, one page). The views are output
// forms like the dump and JSON: --error-format governs the diagnostics on
// standard error, never them.
#include <cstdio>
#include <optional>

#include "report/json_export.h"
#include "support/escape.h"
#include "syntax/printer.h"
#include "tool/commands.h"
#include "tool/output_file.h"
#include "tool/program_io.h"
#include "view/brief_view.h"
#include "view/dot_view.h"
#include "view/html_page.h"

namespace reshardctl {

namespace {

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
std::optional<std::string> htmlView(ViewContext& view, const OpSelection& selection, const PrintOptions& options,
                                    Reporter& reporter, int* failure) {
  HtmlOptions html;
  html.shownAttributes = options.shownAttributes;
  html.maxOps = options.maxOps;
  if (options.compare.empty()) return writeHtml(view, selection, html);
  DiagnosticEngine beforeDiagnostics = reporter.engine();
  LoadedProgram before = loadProgram(options.compare, beforeDiagnostics);
  reporter.report(beforeDiagnostics);
  if (!before.program) {
    *failure = before.failure;
    return std::nullopt;
  }
  ViewContext beforeView(*before.program, *before.source, options.costs);
  html.before = &beforeView;
  return writeHtml(view, selection, html);
}

// The view's text, or nullopt with *failure set (diagnosed).
std::optional<std::string> viewText(const LoadedProgram& loaded, const PrintOptions& options, const std::string& emit,
                                    Reporter& reporter, DiagnosticEngine& diagnostics, int* failure) {
  ViewContext view(*loaded.program, *loaded.source, options.costs);
  OpSelection selection = OpSelection::all(view.ops);
  if (!options.focus.empty()) {
    std::string error;
    std::optional<OpSelection> around = selectNeighbourhood(view, options.focus, options.depth, &error);
    if (!around) {
      diagnostics.error(error);
      *failure = kExitUsage;
      return std::nullopt;
    }
    selection = std::move(*around);
  }
  if (emit == "brief") {
    std::string text = writeBrief(view, selection, options.shownAttributes);
    escapeForTerminal(text);  // a listing for a person: op names and labels come from the input
    return text;
  }
  if (emit == "dot") return writeDot(view, selection);
  return htmlView(view, selection, options, reporter, failure);
}

// printLoaded's status when the output could not be written: runPrint
// reports it once, with the reason the output file knows.
constexpr int kWriteFailed = -1;

// A view of several inputs starts each input's part with a line naming it:
// head(1)'s "==> NAME <==" before a brief listing, a comment before a digraph
// (Graphviz draws each digraph of a file: `dot -Tsvg -O`). The dump and JSON
// need none: programs one after another are a log (`reshardctl list`), JSON
// documents one after another what jq reads.
std::string viewHeader(const std::string& emit, const std::string& name) {
  if (emit == "brief") return "==> " + terminalLine(name) + " <==\n";
  if (emit == "dot") return dotComment(name);
  return "";
}

// One loaded program in the chosen form; an exit code or kWriteFailed.
int printLoaded(const LoadedProgram& loaded, const PrintOptions& options, const std::string& emit,
                Reporter& reporter, DiagnosticEngine& diagnostics, OutputSink& out, const std::string& header) {
  bool written = true;
  if (emit == "json") {
    written = writeProgramJson(*loaded.program, loaded.source.get(), out);  // streamed: one op at a time
  } else if (isView(emit)) {
    int failure = kExitOk;
    std::optional<std::string> text = viewText(loaded, options, emit, reporter, diagnostics, &failure);
    if (!text) return failure;
    out.write(header);
    out.write(*text);
    written = out.flush();
  } else {
    written = printProgram(*loaded.program, out);
  }
  return written ? kExitOk : kWriteFailed;
}

}  // namespace

int runPrint(const PrintOptions& options, Reporter& reporter) {
  const std::string emit = options.brief ? "brief" : options.emit;
  if (const std::string problem = usageProblem(options, emit); !problem.empty()) {
    reporter.toolError(problem);
    return kExitUsage;
  }
  std::vector<std::string> files;
  if (!expandInputs(options.inputs, reporter, &files)) return kExitUsage;
  if (emit == "html" && (files.size() > 1 || options.inputs.recursive)) {
    reporter.toolError("--emit=html writes one page: it takes one input");
    return kExitUsage;
  }
  // One output for all inputs, published only when every one printed.
  std::string error;
  std::optional<OutputFile> out = OutputFile::open(options.output, &error);
  if (!out) {
    reporter.toolError(error);
    return kExitUsage;
  }
  bool writeFailed = false;
  int status = forEachFile(files, options.inputs, reporter, standardError(), [&](const InputProgram& input) {
    DiagnosticEngine diagnostics = reporter.engine();
    LoadedProgram loaded = loadProgram(input, diagnostics);
    int fileStatus = loaded.failure;
    const std::string header = input.oneOfSeveral ? viewHeader(emit, input.name) : "";
    if (loaded.program && !writeFailed)
      fileStatus = printLoaded(loaded, options, emit, reporter, diagnostics, out->sink(), header);
    if (fileStatus == kWriteFailed) writeFailed = true, fileStatus = kExitUsage;
    out->sink().flush();  // each input's text before the line saying how it went (stderr)
    reporter.report(diagnostics);
    return InputOutcome{fileStatus, fileStatus == kExitOk ? "ok" : "failed"};
  }).status;
  if (writeFailed) out->abandon(&error);
  if (writeFailed || (status == kExitOk && !out->commit(&error))) {
    reporter.toolError(error.empty() ? "cannot write '" + options.output + "'" : error);
    status = kExitUsage;
  }
  return status;
}

}  // namespace reshardctl
