// `reshardctl verify`: read and check programs without writing them; the
// load-time errors plus the warnings of lint.h, for every input.
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "passes/lint.h"
#include "report/json_export.h"
#include "report/result_json.h"
#include "support/text.h"
#include "tool/cli.h"
#include "tool/cli_support.h"
#include "tool/input_files.h"
#include "tool/reporting.h"

namespace reshardctl {

namespace {

struct VerifyOptions {
  InputSelection inputs;  // with --program
  bool json = false;    // a report on stdout (schema/verify.schema.json)
};

std::string fileSummary(size_t errors, size_t warnings) {
  if (errors == 0 && warnings == 0) return "ok";
  if (errors == 0) return plural(warnings, "warning");
  return warnings == 0 ? plural(errors, "error") : plural(errors, "error") + ", " + plural(warnings, "warning");
}

// "verified 3 files: ...", or with the programs of logs taken in turn
// "verified 5 programs of 3 files: ...".
std::string inputsText(const InputRun& run) {
  return countedIn(run.programs, "program", run.files, "file");
}

int runVerify(const VerifyOptions& options, Reporter& reporter) {
  nlohmann::ordered_json report = documentJson("verify");
  report["files"] = nlohmann::ordered_json::array();
  size_t withErrors = 0, withWarnings = 0;
  const std::vector<std::string> files = expandInputs(options.inputs, reporter);
  const InputRun run = forEachInput(files, options.inputs, reporter, standardError, [&](const InputProgram& input) {
    DiagnosticEngine diagnostics = reporter.engine();
    LoadedProgram loaded = loadProgram(input, diagnostics);
    if (loaded.program) lintProgram(*loaded.program, diagnostics);
    const size_t errors = diagnostics.errorCount(), warnings = diagnostics.warningCount();
    withErrors += errors > 0 ? 1 : 0;
    withWarnings += errors == 0 && warnings > 0 ? 1 : 0;
    if (options.json)
      report["files"].push_back(
          verifyFileJson(loaded.source ? loaded.source->name() : input.path, loaded.index, loaded.source.get(), diagnostics.sorted(), errors, warnings));
    reporter.report(diagnostics);  // -q hides the warnings
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

SubcommandRunner defineVerify(CLI::App& command, ReportingOptions& reporting) {
  auto options = std::make_shared<VerifyOptions>();
  addInputFlags(command, options->inputs);
  addProgramOption(command, options->inputs);
  addWarningFlags(command, reporting);
  command.add_flag("--json", options->json,
                   "A report on stdout: every input's diagnostics (schema/verify.schema.json)");
  addReportingFlags(command, reporting);
  command.footer(fmt::format("{}\nExit status: 0 no errors, 1 errors (a warning is one under -Werror), {}.",
                             kSeveralInputs, kUsageExit));
  return [options](Reporter& reporter) { return runVerify(*options, reporter); };
}

}  // namespace

const SubcommandSpec kVerifySubcommand{"verify",
                                       "Check programs: the load-time errors plus warnings (uneven shards, extra "
                                       "entries, dense operands of dist ops, meshes known only by shape)",
                                       defineVerify};

}  // namespace reshardctl
