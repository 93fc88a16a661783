// `reshardctl diff`: load both programs → structural diff → a listing, its
// summary line, JSON, or (-u) the summary line and a unified diff of the
// two texts.
#include <cstdio>
#include <memory>

#include "passes/program_diff.h"
#include "report/json_export.h"
#include "report/result_json.h"
#include "report/unified_diff.h"
#include "support/failure.h"
#include "tool/cli.h"
#include "tool/cli_support.h"
#include "tool/input_files.h"
#include "tool/program_output.h"
#include "tool/reporting.h"

namespace reshardctl {

namespace {
// As diff(1): 0 equal, 1 different, 2 any problem, bad input included.
constexpr ExitCode kDiffEqual = kExitOk;
constexpr ExitCode kDiffDifferent = kExitBadInput;
constexpr ExitCode kDiffTrouble = kExitUsage;

struct DiffCommandOptions {
  std::string before;
  std::string after;  // "" with two --program: both programs come from `before`
  std::vector<std::string> programs;  // --program: the first for `before`, the second for `after`
  std::vector<std::string> ignoredAttributes;
  bool stat = false;  // only the summary line
  bool unified = false;  // a unified diff of the two texts, under the summary line
  size_t context = 3;    // its lines of context
  bool json = false;     // the changes as JSON (schema/diff.schema.json)
  bool fragment = false;  // --fragment, for both programs (input_files.h)
};

// The program's own lines: the whole file, or its part of a log.
std::string_view programText(const LoadedProgram& loaded) {
  return loaded.source->text().substr(loaded.begin, loaded.end - loaded.begin);
}

// `diff --program A --program B FILE`: two programs of one file, read once
// (it may be standard input).
void loadTwoOfOneFile(const DiffCommandOptions& options, DiagnosticEngine& beforeDiagnostics,
                      DiagnosticEngine& afterDiagnostics, LoadedProgram* before, LoadedProgram* after) {
  std::shared_ptr<const InputFile> file = readInput(options.before, options.fragment);
  *before = loadProgram(InputProgram::chosen(file, options.programs[0]), beforeDiagnostics);
  // Why the file cannot be read is said once, for the first.
  if (file->failure == kExitOk) *after = loadProgram(InputProgram::chosen(file, options.programs[1]), afterDiagnostics);
}

// Why the positional files and --program flags do not name two programs, or "".
const char* usageProblem(const DiffCommandOptions& options) {
  if (options.programs.size() > 2) return "--program can be given at most twice";
  if (options.after.empty() && options.programs.size() != 2)
    return "diff needs two programs: two files, or one file and --program twice";
  if (options.before == "-" && options.after == "-") return "only one of the two programs can be standard input";
  return nullptr;
}

// The chosen form of the diff on `out` but -u's: JSON; the summary line
// (equal programs too: "0 ops added, ..."); or the summary line and the
// listing (nothing when equal, as diff(1)), written change by change.
bool writeDiffOutput(const ProgramDiff& diff, const LoadedProgram& before, const LoadedProgram& after,
                     const DiffCommandOptions& options, OutputSink& out) {
  auto put = [&](std::string_view text) { out.write(text); };
  if (options.json) {
    put(dumpJson(programDiffJson(diff, *before.source, *after.source)));
  } else if (options.stat) {
    put(formatDiffStat(diff));
  } else if (diff.equal()) {
  } else if (!options.unified) {
    put(formatDiffStat(diff));  // the summary line first, in the listing as in -u
    writeDiff(diff, *before.source, *after.source, put);
  }
  return !out.failed();
}

// -u: the summary line (patch and git apply skip text before the "---"
// header), then the two texts' unified diff, written hunk by hunk. The graphs
// and the structural diff are dropped first: the text diff needs only the
// texts, so the run holds the graphs or the texts, not both.
bool writeUnifiedOutput(ProgramDiff diff, LoadedProgram& before, LoadedProgram& after,
                        const DiffCommandOptions& options, bool color, OutputSink& out) {
  out.write(formatDiffStat(diff));
  diff = ProgramDiff{};
  before.program.reset();
  after.program.reset();
  UnifiedDiffOptions layout;
  layout.context = options.context;
  layout.color = color;
  layout.beforeFirstLine = before.source->lineCol(before.begin).line;  // a log's programs: its lines
  layout.afterFirstLine = after.source->lineCol(after.begin).line;
  layout.readPast = droppingPagesBehind(*before.source, before.begin, *after.source, after.begin);
  writeUnifiedDiff(programText(before), programText(after), before.source->name(), after.source->name(), layout, out);
  return !out.failed();
}

// Exits as diff(1): 0 equal, 1 different, 2 trouble (unreadable or bad input).
int runDiff(const DiffCommandOptions& options, Reporter& reporter) {
  if (const char* problem = usageProblem(options)) throw Failure(FailureKind::Usage, problem);
  DiagnosticEngine beforeDiagnostics = reporter.engine();
  DiagnosticEngine afterDiagnostics = reporter.engine();
  LoadedProgram before, after;
  if (options.after.empty()) {
    loadTwoOfOneFile(options, beforeDiagnostics, afterDiagnostics, &before, &after);
  } else {
    const std::string beforeProgram = options.programs.empty() ? "" : options.programs.front();
    const std::string afterProgram = options.programs.empty() ? "" : options.programs.back();
    before = loadProgram(options.before, beforeDiagnostics, beforeProgram, options.fragment);
    after = loadProgram(options.after, afterDiagnostics, afterProgram, options.fragment);
  }
  reporter.report(beforeDiagnostics);
  reporter.report(afterDiagnostics);
  if (!before.program || !after.program) return kDiffTrouble;

  ProgramDiff diff = diffPrograms(*before.program, *after.program, {options.ignoredAttributes});
  const bool equal = diff.equal();
  const bool unified = options.unified && !options.json && !options.stat && !equal;
  DiagnosticEngine output = reporter.engine();
  const int written = writeOutput("-", output, [&](OutputSink& out) {
    return unified ? writeUnifiedOutput(std::move(diff), before, after, options, reporter.colorStdout(), out)
                   : writeDiffOutput(diff, before, after, options, out);
  });
  if (written != kExitOk) {
    reporter.report(output);
    return kDiffTrouble;
  }
  return equal ? kDiffEqual : kDiffDifferent;
}

SubcommandRunner defineDiff(CLI::App& command, ReportingOptions& reporting) {
  auto options = std::make_shared<DiffCommandOptions>();
  DiffCommandOptions& diff = *options;
  command.add_option("before", diff.before, "The old program")->required();
  command.add_option("after", diff.after, "The new program (leave it out to compare two programs of "
                                          "one file: --program A --program B FILE)");
  command.add_option("--program", diff.programs,
                     "Which program of a file holding several: given once, for both files; twice, the "
                     "first for the old program and the second for the new")
      ->allow_extra_args(false);
  command.add_option("--ignore-attr", diff.ignoredAttributes,
                     "Leave this attribute out of the comparison (repeatable)")
      ->allow_extra_args(false);  // one name per flag, so inputs after it stay positional
  addFragmentFlag(command, diff.fragment);
  CLI::Option* stat = command.add_flag("--stat", diff.stat, "Print only a summary line");
  CLI::Option* unified =
      command.add_flag("-u,--unified", diff.unified,
                       "When they differ: the summary line, then a unified diff of the two files' texts")
          ->excludes(stat);
  command.add_option_function<size_t>(
             "-U,--context", [&diff](size_t lines) { diff.context = lines, diff.unified = true; },
             "Lines of context in the unified diff (implies -u)")
      ->check(unsignedInteger())
      ->default_str("3")
      ->excludes(stat);
  command.add_flag("--json", diff.json, "The changes as JSON (schema/diff.schema.json)")
      ->excludes(stat)
      ->excludes(unified);
  addReportingFlags(command, reporting);
  command.footer("Exit status: 0 equal, 1 different, 2 trouble (bad input, unreadable file, bad usage), as diff(1).");
  return [options](Reporter& reporter) { return runDiff(*options, reporter); };
}

}  // namespace

const SubcommandSpec kDiffSubcommand{"diff",
                                     "Compare two programs by structure (renumbering is no difference); "
                                     "exit 0 equal, 1 different, 2 trouble",
                                     defineDiff};

}  // namespace reshardctl
