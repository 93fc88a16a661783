// `reshardctl diff`: load both programs → structural diff → listing.
#include <cstdio>

#include "passes/program_diff.h"
#include "tool/commands.h"
#include "tool/program_io.h"

namespace reshardctl {

namespace {
constexpr int kDiffEqual = 0;
constexpr int kDiffDifferent = 1;
constexpr int kDiffTrouble = 2;  // diff(1): any problem is 2, bad input included
}  // namespace

int runDiff(const DiffCommandOptions& options) {
  if (options.before == "-" && options.after == "-") {
    std::fputs("reshardctl: error: only one of the two programs can be standard input\n", stderr);
    return kDiffTrouble;
  }
  DiagnosticEngine beforeDiagnostics;
  DiagnosticEngine afterDiagnostics;
  LoadedProgram before = loadProgram(options.before, beforeDiagnostics);
  LoadedProgram after = loadProgram(options.after, afterDiagnostics);
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
