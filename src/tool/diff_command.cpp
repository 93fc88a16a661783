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
  if (!source) return;
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
    std::fprintf(stderr, "error: %s\n", usage);
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
  if (diff.equal()) return kDiffEqual;
  std::string text = options.stat ? formatDiffStat(diff)
                                  : formatDiff(diff, *before.source, *after.source);
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
    std::perror("error: cannot write the diff");
    return kDiffTrouble;
  }
  return kDiffDifferent;
}

}  // namespace reshardctl
