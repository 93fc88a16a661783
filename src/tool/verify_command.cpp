// `reshardctl verify`: read and check programs without writing them; the
// load-time errors plus the warnings of lint.h, for every input.
#include <cstdio>

#include <fmt/format.h>

#include "passes/lint.h"
#include "report/json_export.h"
#include "report/result_json.h"
#include "tool/commands.h"
#include "tool/program_io.h"

namespace reshardctl {

namespace {

std::string plural(size_t count, const char* noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

std::string fileSummary(size_t errors, size_t warnings) {
  if (errors == 0 && warnings == 0) return "ok";
  if (errors == 0) return plural(warnings, "warning");
  return warnings == 0 ? plural(errors, "error") : plural(errors, "error") + ", " + plural(warnings, "warning");
}

}  // namespace

int runVerify(const VerifyOptions& options, Reporter& reporter) {
  std::vector<std::string> files;
  if (!expandInputs(options.inputs, reporter, &files)) return kExitUsage;
  nlohmann::ordered_json report = documentJson("verify");
  report["files"] = nlohmann::ordered_json::array();
  size_t withErrors = 0, withWarnings = 0;
  const int status = forEachFile(files, reporter, stderr, [&](const std::string& path) {
    DiagnosticEngine diagnostics = reporter.engine();
    LoadedProgram loaded = loadProgram(path, diagnostics, options.program);
    if (loaded.program) lintProgram(*loaded.program, diagnostics);
    const size_t errors = diagnostics.errorCount(), warnings = diagnostics.warningCount();
    withErrors += errors > 0 ? 1 : 0;
    withWarnings += errors == 0 && warnings > 0 ? 1 : 0;
    if (options.json)
      report["files"].push_back(verifyFileJson(path, loaded.source.get(), diagnostics.sorted(), errors, warnings));
    reporter.report(diagnostics, !options.quiet);
    const int fileStatus = loaded.failure != kExitOk ? loaded.failure : errors > 0 ? kExitBadInput : kExitOk;
    return InputOutcome{fileStatus, fileSummary(errors, warnings)};
  });
  if (files.size() > 1)
    reporter.summary(stderr, fmt::format("verified {}: {} ok, {} with warnings, {} with errors",
                                         plural(files.size(), "file"), files.size() - withErrors - withWarnings,
                                         withWarnings, withErrors));
  if (options.json) {
    const std::string text = dumpJson(report);
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (std::fflush(stdout) != 0) return kExitUsage;
  }
  return status;
}

}  // namespace reshardctl
