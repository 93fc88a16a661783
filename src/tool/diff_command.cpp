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

// The program's own lines: the whole file, or its part of a log.
std::string_view programText(const LoadedProgram& loaded) {
  return loaded.source->text().substr(loaded.begin, loaded.end - loaded.begin);
}

// `diff --program A --program B FILE`: two programs of one file, read once
// (it may be standard input).
void loadTwoOfOneFile(const DiffCommandOptions& options, DiagnosticEngine& beforeDiagnostics,
                      DiagnosticEngine& afterDiagnostics, LoadedProgram* before, LoadedProgram* after) {
  int failure = kExitOk;
  std::shared_ptr<SourceFile> source = readSourceFile(options.before, beforeDiagnostics, &failure);
  if (!source || failure != kExitOk) {
    before->source = std::move(source);  // the diagnostics point into it
    return;
  }
  *before = loadProgramFrom(source, beforeDiagnostics, options.programs[0]);
  *after = loadProgramFrom(source, afterDiagnostics, options.programs[1]);
}

// Why the positional files and --program flags do not name two programs, or "".
const char* usageProblem(const DiffCommandOptions& options) {
  if (options.programs.size() > 2) return "--program can be given at most twice";
  if (options.after.empty() && options.programs.size() != 2)
    return "diff needs two programs: two files, or one file and --program twice";
  if (options.before == "-" && options.after == "-") return "only one of the two programs can be standard input";
  return nullptr;
}

// The chosen form of the diff on `out`: JSON; the summary line (equal
// programs too: "0 ops added, ..."); the summary line and the listing
// (nothing when equal, as diff(1)), written change by change; or the summary
// line and a unified diff of the two texts.
bool writeDiffOutput(const ProgramDiff& diff, const LoadedProgram& before, const LoadedProgram& after,
                     const DiffCommandOptions& options, bool color, OutputSink& out) {
  auto put = [&](std::string_view text) { out.write(text); };
  if (options.json) {
    put(dumpJson(programDiffJson(diff, *before.source, *after.source)));
  } else if (options.stat) {
    put(formatDiffStat(diff));
  } else if (diff.equal()) {
  } else if (!options.unified) {
    put(formatDiffStat(diff));  // the summary line first, in the listing as in -u
    writeDiff(diff, *before.source, *after.source, put);
  } else {
    // The summary line first: patch and git apply skip text before the "---" header.
    put(formatDiffStat(diff) + unifiedDiff(programText(before), programText(after), before.source->name(),
                                           after.source->name(), UnifiedDiffOptions{options.context, color}));
  }
  return !out.failed();
}

}  // namespace

int runDiff(const DiffCommandOptions& options, Reporter& reporter) {
  if (const char* problem = usageProblem(options)) {
    reporter.toolError(problem);
    return kDiffTrouble;
  }
  DiagnosticEngine beforeDiagnostics = reporter.engine();
  DiagnosticEngine afterDiagnostics = reporter.engine();
  LoadedProgram before, after;
  if (options.after.empty()) {
    loadTwoOfOneFile(options, beforeDiagnostics, afterDiagnostics, &before, &after);
  } else {
    const std::string beforeProgram = options.programs.empty() ? "" : options.programs.front();
    const std::string afterProgram = options.programs.empty() ? "" : options.programs.back();
    before = loadProgram(options.before, beforeDiagnostics, beforeProgram);
    after = loadProgram(options.after, afterDiagnostics, afterProgram);
  }
  reporter.report(beforeDiagnostics);
  reporter.report(afterDiagnostics);
  if (!before.program || !after.program) return kDiffTrouble;

  ProgramDiff diff = diffPrograms(*before.program, *after.program, {options.ignoredAttributes});
  DiagnosticEngine output = reporter.engine();
  const int written = writeOutput("-", output, [&](OutputSink& out) {
    return writeDiffOutput(diff, before, after, options, reporter.colorStdout(), out);
  });
  if (written != kExitOk) {
    reporter.report(output);
    return kDiffTrouble;
  }
  return diff.equal() ? kDiffEqual : kDiffDifferent;
}

}  // namespace reshardctl
