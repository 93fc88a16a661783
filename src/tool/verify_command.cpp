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

// "verified 3 files: ...", or with the programs of logs taken in turn
// "verified 5 programs of 3 files: ...".
std::string inputsText(const InputRun& run) {
  if (run.programs == run.files) return plural(run.files, "file");
  return fmt::format("{} of {}", plural(run.programs, "program"), plural(run.files, "file"));
}

}  // namespace

int runVerify(const VerifyOptions& options, Reporter& reporter) {
  nlohmann::ordered_json report = documentJson("verify");
  report["files"] = nlohmann::ordered_json::array();
  size_t withErrors = 0, withWarnings = 0;
  const InputRun run = forEachInput(options.inputs, reporter, standardError(), [&](const InputProgram& input) {
    DiagnosticEngine diagnostics = reporter.engine();
    LoadedProgram loaded = loadProgram(input, diagnostics);
    if (loaded.program) lintProgram(*loaded.program, diagnostics);
    const size_t errors = diagnostics.errorCount(), warnings = diagnostics.warningCount();
    withErrors += errors > 0 ? 1 : 0;
    withWarnings += errors == 0 && warnings > 0 ? 1 : 0;
    if (options.json)
      report["files"].push_back(
          verifyFileJson(loaded.source ? loaded.source->name() : input.path, loaded.index, loaded.source.get(), diagnostics.sorted(), errors, warnings));
    reporter.report(diagnostics, !options.quiet);
    const int status = loaded.failure != kExitOk ? loaded.failure : errors > 0 ? kExitBadInput : kExitOk;
    return InputOutcome{status, fileSummary(errors, warnings)};
  });
  if (run.programs > 1)
    reporter.summary(standardError(), fmt::format("verified {}: {} ok, {} with warnings, {} with errors", inputsText(run),
                                         run.programs - withErrors - withWarnings, withWarnings, withErrors));
  if (options.json) {
    const std::string text = dumpJson(report);
    standardOutput().write(text);
    standardOutput().flush();  // a failure is reported once, by runCli
  }
  return run.status;
}

}  // namespace reshardctl
