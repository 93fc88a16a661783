// `reshardctl print`: read → verify → print (a canonical reprint, JSON, or
// one of the views of src/view/: brief, dot, html), every input one after
// another into one output (html: one input, one page). The views are output
// forms like the dump and JSON: --error-format governs the diagnostics on
// standard error, never them.
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "report/json_export.h"
#include "reshard/cost_model.h"
#include "support/escape.h"
#include "syntax/printer.h"
#include "tool/cli.h"
#include "tool/cli_support.h"
#include "tool/input_files.h"
#include "support/output_file.h"
#include "support/failure.h"
#include "tool/input_files.h"
#include "tool/reporting.h"
#include "view/brief_view.h"
#include "view/dot_view.h"
#include "view/html_page.h"

namespace reshardctl {

namespace {

// The dump, JSON (json_export.h), or a view (src/view/).
enum class Emit { Ir, Json, Brief, Dot, Html };

// Built when print's flags are (no static object outlives another subcommand's run).
const Choices<Emit>& emitChoices() {
  static const Choices<Emit> choices = {
      {"ir", Emit::Ir}, {"json", Emit::Json}, {"brief", Emit::Brief}, {"dot", Emit::Dot}, {"html", Emit::Html}};
  return choices;
}

struct PrintOptions {
  InputSelection inputs;     // printed one after another; with --program
  std::string output = "-";
  Emit emit = Emit::Ir;
  bool brief = false;  // --brief: the same as --emit=brief
  std::vector<std::string> shownAttributes;  // views: attributes to show by name
  std::string focus;   // views: only the neighbourhood of this value ("%9")
  int depth = 2;       // with focus: how many dataflow steps around it
  std::string compare;  // html: the program before `apply`, shown side by side
  size_t maxOps = 5000;  // html: the most op rows the page inlines
  CostModel costs;       // reshard costs in the views
};

bool isView(Emit emit) { return emit == Emit::Brief || emit == Emit::Dot || emit == Emit::Html; }

// Flags that mean nothing for the chosen output: bad usage, said before reading.
std::string usageProblem(const PrintOptions& options, Emit emit) {
  if (options.brief && options.emit != Emit::Ir && options.emit != Emit::Brief)
    return std::string("--brief cannot be combined with --emit=") + choiceName(emitChoices(), options.emit);
  if (!isView(emit) && (!options.focus.empty() || !options.shownAttributes.empty()))
    return "--focus and --show-attr apply to the views (--brief, --emit=dot, --emit=html)";
  if (emit != Emit::Html && !options.compare.empty()) return "--compare applies to --emit=html";
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

// The view written to `out` after `header`, or false with *failure set
// (diagnosed) and nothing written. The brief listing goes a line at a time.
bool writeView(const LoadedProgram& loaded, const PrintOptions& options, Emit emit, Reporter& reporter,
               DiagnosticEngine& diagnostics, const std::string& header, OutputSink& out, int* failure) {
  ViewContext view(*loaded.program, *loaded.source, options.costs);
  OpSelection selection = OpSelection::all(view.ops);
  if (!options.focus.empty()) {
    std::string error;
    std::optional<OpSelection> around = selectNeighbourhood(view, options.focus, options.depth, &error);
    if (!around) {
      diagnostics.error(error);
      *failure = kExitUsage;
      return false;
    }
    selection = std::move(*around);
  }
  if (emit == Emit::Brief) {
    out.write(header);
    // A listing for a person: op names and labels come from the input.
    writeBrief(view, selection, options.shownAttributes, out, /*terminal=*/true);
    return true;
  }
  std::optional<std::string> text =
      emit == Emit::Dot ? writeDot(view, selection) : htmlView(view, selection, options, reporter, failure);
  if (!text) return false;
  out.write(header);
  out.write(*text);
  return true;
}

// printLoaded's status when the output could not be written: runPrint
// reports it once, with the reason the output file knows.
constexpr int kWriteFailed = -1;

// A view of several inputs starts each input's part with a line naming it:
// head(1)'s "==> NAME <==" before a brief listing, a comment before a digraph
// (Graphviz draws each digraph of a file: `dot -Tsvg -O`). The dump and JSON
// need none: programs one after another are a log (`reshardctl list`), JSON
// documents one after another what jq reads.
std::string viewHeader(Emit emit, const std::string& name) {
  if (emit == Emit::Brief) return "==> " + terminalLine(name) + " <==\n";
  if (emit == Emit::Dot) return dotComment(name);
  return "";
}

// One loaded program in the chosen form; an exit code or kWriteFailed.
int printLoaded(const LoadedProgram& loaded, const PrintOptions& options, Emit emit,
                Reporter& reporter, DiagnosticEngine& diagnostics, OutputSink& out, const std::string& header) {
  bool written = true;
  if (emit == Emit::Json) {
    written = writeProgramJson(*loaded.program, loaded.source.get(), out);  // streamed: one op at a time
  } else if (isView(emit)) {
    int failure = kExitOk;
    if (!writeView(loaded, options, emit, reporter, diagnostics, header, out, &failure)) return failure;
    written = out.flush();
  } else {
    written = printProgram(*loaded.program, out);
  }
  return written ? kExitOk : kWriteFailed;
}

int runPrint(const PrintOptions& options, Reporter& reporter) {
  const Emit emit = options.brief ? Emit::Brief : options.emit;
  if (const std::string problem = usageProblem(options, emit); !problem.empty())
    throw Failure(FailureKind::Usage, problem);
  const std::vector<std::string> files = expandInputs(options.inputs, reporter);
  if (emit == Emit::Html && (files.size() > 1 || options.inputs.recursive))
    throw Failure(FailureKind::Usage, "--emit=html writes one page: it takes one input");
  // One output for all inputs, published only when every one printed.
  std::string error;
  std::optional<OutputFile> out = OutputFile::open(options.output, &error);
  if (!out) throw Failure(FailureKind::Io, error);
  bool writeFailed = false;
  int status = forEachInput(files, options.inputs, reporter, standardError, [&](const InputProgram& input) {
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
  if (writeFailed || (status == kExitOk && !out->commit(&error)))
    throw Failure(FailureKind::Io, error.empty() ? "cannot write '" + options.output + "'" : error);
  return status;
}

// The views' flags (src/view/): the brief listing and its attributes, the
// neighbourhood cut, the page's comparison and cap, and the cost flags.
void addViewFlags(CLI::App& command, PrintOptions& print, CostFlags& costs) {
  command.add_flag("--brief", print.brief, "One short line per op in placement notation (= --emit=brief)");
  command.add_option("--show-attr", print.shownAttributes,
                     "Views: show this attribute after the types (repeatable)")
      ->allow_extra_args(false);
  command.add_option("--focus", print.focus,
                     "Views: show only the ops around this value (e.g. %9), see --depth");
  command.add_option("--depth", print.depth, "With --focus: how many dataflow steps around the value")
      ->check(integerIn(0, std::numeric_limits<int>::max()))
      ->capture_default_str();
  command.add_option("--compare", print.compare,
                     "html: the program before apply, shown side by side with the input (FILE#N: a log's program)")
      ->type_name("FILE");
  command.add_option("--max-ops", print.maxOps, "html: the most op rows the page inlines")
      ->check(integerIn(1, std::numeric_limits<int64_t>::max()))
      ->capture_default_str();
  addCostModelFlags(command, print.costs, costs);
}

SubcommandRunner definePrint(CLI::App& command, ReportingOptions& reporting) {
  auto flags = std::make_shared<WithCostFlags<PrintOptions>>();
  PrintOptions& options = flags->options;
  addInputsOutputProgram(command, options.inputs, options.output);
  CLI::Option* emit = addChoiceOption(command, "--emit", options.emit, emitChoices(),
                                      "Output format: ir (the dump), json, or a view: brief (one line per "
                                      "op), dot (Graphviz dataflow), html (one self-contained page)");
  command.add_flag_callback("--json", [&options] { options.emit = Emit::Json; },
                            "The same as --emit=json (schema/program.schema.json)")
      ->excludes(emit);
  addViewFlags(command, options, flags->costs);
  addJobsOption(command);
  addReportingFlags(command, reporting);
  command.footer(fmt::format("{}\nExit status: 0 printed, 1 bad input, {}.", kSeveralInputs, kUsageExit));
  return runnerWithCosts(flags, runPrint);
}

}  // namespace

const SubcommandSpec kPrintSubcommand{
    "print", "Parse, verify and print the program back (renumbering it); several inputs one after another",
    definePrint};

}  // namespace reshardctl
