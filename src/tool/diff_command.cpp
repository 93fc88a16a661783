// `reshardctl diff`: load both programs → structural diff → listing.
#include <cstdio>
#include <memory>

#include "passes/program_diff.h"
#include "tool/commands.h"
#include "tool/program_io.h"

namespace reshardctl {

namespace {
constexpr int kDiffEqual = 0;
constexpr int kDiffDifferent = 1;
constexpr int kDiffTrouble = 2;  // diff(1): any problem is 2, bad input included
}  // namespace

namespace {

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

}  // namespace

int runDiff(const DiffCommandOptions& options) {
  const char* usage = nullptr;
  if (options.programs.size() > 2) usage = "--program can be given at most twice";
  else if (options.after.empty() && options.programs.size() != 2)
    usage = "diff needs two programs: two files, or one file and --program twice";
  else if (options.before == "-" && options.after == "-")
    usage = "only one of the two programs can be standard input";
  if (usage) {
    std::fprintf(stderr, "reshardctl: error: %s\n", usage);
    return kDiffTrouble;
  }
  DiagnosticEngine beforeDiagnostics;
  DiagnosticEngine afterDiagnostics;
  LoadedProgram before, after;
  if (options.after.empty()) {
    loadTwoOfOneFile(options, beforeDiagnostics, afterDiagnostics, &before, &after);
  } else {
    std::string beforeProgram = options.programs.empty() ? "" : options.programs.front();
    before = loadProgram(options.before, beforeDiagnostics, beforeProgram);
    after = loadProgram(options.after, afterDiagnostics, options.programs.empty() ? "" : options.programs.back());
  }
  beforeDiagnostics.flush(stderr);
  afterDiagnostics.flush(stderr);
  if (!before.program || !after.program) return kDiffTrouble;

  ProgramDiff diff = diffPrograms(*before.program, *after.program, {options.ignoredAttributes});
  // Equal programs list nothing, as diff(1); the summary still has its line.
  DiagnosticEngine output;
  int written = writeOutput("-", output, [&](std::FILE* out) {
    if (options.stat) return std::fputs(formatDiffStat(diff).c_str(), out) >= 0;
    writeDiff(diff, *before.source, *after.source,
              [&](std::string_view text) { std::fwrite(text.data(), 1, text.size(), out); });
    return true;
  });
  if (written != kExitOk) {
    output.flush(stderr);
    return kDiffTrouble;
  }
  return diff.equal() ? kDiffEqual : kDiffDifferent;
}

}  // namespace reshardctl
