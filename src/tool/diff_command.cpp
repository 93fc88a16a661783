// `reshardctl diff`: load both programs → structural diff → a listing, its
// summary line, JSON, or (-u) the summary line and a unified diff of the
// two texts.
#include <cstdio>

#include "passes/program_diff.h"
#include "report/json_export.h"
#include "report/result_json.h"
#include "report/unified_diff.h"
#include "tool/commands.h"
#include "tool/program_io.h"

namespace reshardctl {

namespace {
constexpr int kDiffEqual = 0;
constexpr int kDiffDifferent = 1;
constexpr int kDiffTrouble = 2;  // diff(1): any problem is 2, bad input included

std::string diffText(const ProgramDiff& diff, const LoadedProgram& before, const LoadedProgram& after,
                     const DiffCommandOptions& options, bool color) {
  if (options.json) return dumpJson(programDiffJson(diff, *before.source, *after.source));
  if (diff.equal()) return "";
  if (options.stat) return formatDiffStat(diff);
  if (!options.unified) return formatDiff(diff, *before.source, *after.source);
  // The summary line first: patch and git apply skip text before the "---" header.
  return formatDiffStat(diff) + unifiedDiff(before.source->text(), after.source->text(), before.source->name(),
                                            after.source->name(), UnifiedDiffOptions{options.context, color});
}

}  // namespace

int runDiff(const DiffCommandOptions& options, Reporter& reporter) {
  if (options.before == "-" && options.after == "-") {
    reporter.toolError("only one of the two programs can be standard input");
    return kDiffTrouble;
  }
  DiagnosticEngine beforeDiagnostics = reporter.engine();
  DiagnosticEngine afterDiagnostics = reporter.engine();
  LoadedProgram before = loadProgram(options.before, beforeDiagnostics);
  LoadedProgram after = loadProgram(options.after, afterDiagnostics);
  reporter.report(beforeDiagnostics);
  reporter.report(afterDiagnostics);
  if (!before.program || !after.program) return kDiffTrouble;

  ProgramDiff diff = diffPrograms(*before.program, *after.program, {options.ignoredAttributes});
  const std::string text = diffText(diff, before, after, options, reporter.colorStdout());
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
    reporter.toolError("cannot write the diff to standard output");
    return kDiffTrouble;
  }
  return diff.equal() ? kDiffEqual : kDiffDifferent;
}

}  // namespace reshardctl
