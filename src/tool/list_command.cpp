// `reshardctl list`: read each file → find the programs it holds
// (syntax/program_finder.h) → a table (one per file, under its name when
// there are several) or one JSON document. Nothing is parsed, so a log of
// many programs is listed in about the time it takes to read it.
#include <memory>

#include <nlohmann/json.hpp>

#include "report/diagnostic_formats.h"
#include "report/json_export.h"
#include "report/result_json.h"
#include "support/escape.h"
#include "syntax/program_finder.h"
#include "tool/commands.h"
#include "tool/program_io.h"

namespace reshardctl {

namespace {

using Json = nlohmann::ordered_json;

Json programsJson(const SourceFile& source, const std::vector<FoundProgram>& programs) {
  Json list = Json::array();
  for (size_t i = 0; i < programs.size(); ++i) {
    const FoundProgram& p = programs[i];
    list.push_back({{"program", i + 1},
                    {"location", placeJson(source, p.begin)},
                    {"end_line", p.endLine},
                    {"label", p.label},
                    {"pass", p.pass.empty() ? Json() : Json(p.pass)},
                    {"ops", p.opCount},
                    {"distributed", p.distributed},
                    {"closed", p.closed}});
  }
  return list;
}

}  // namespace

int runList(const ListOptions& options, Reporter& reporter) {
  Json document = documentJson("list");
  document["files"] = Json::array();
  std::string table;
  // A file's programs are what is listed: each file is one input, whole.
  const InputRun run = forEachInput(
      options.inputs, reporter, standardError(),
      [&](const InputProgram& input) {
        DiagnosticEngine diagnostics = reporter.engine();
        int status = kExitOk;
        std::shared_ptr<SourceFile> source = readSourceFile(input.path, diagnostics, &status);
        if (!source || status != kExitOk) {  // unreadable, or cut (too large, binary): reported
          reporter.report(diagnostics);
          return InputOutcome{status, ""};
        }
        diagnostics.setSource(source.get());
        const std::vector<FoundProgram> programs = findProgramsIn(*source);
        if (programs.empty()) {
          diagnostics.error("no program found in '" + source->name() +
                            "': expected a line ending in '{' followed by op lines")
              .code = kNoProgramCode;
          status = kExitBadInput;
        }
        document["files"].push_back({{"file", source->name()}, {"programs", programsJson(*source, programs)}});
        if (!programs.empty()) {
          if (input.oneOfSeveral) table += (table.empty() ? "" : "\n") + terminalLine(source->name()) + ":\n";
          table += formatProgramTable(programs);
        }
        reporter.report(diagnostics);
        return InputOutcome{status, ""};
      },
      SeveralPrograms::WholeFile);
  // Written when every file could be read; a file without programs is left
  // out of the table (its error says so) and makes the status 1.
  if (run.status == kExitUsage) return run.status;
  DiagnosticEngine diagnostics = reporter.engine();
  const int written = writeTextOutput(options.json ? dumpJson(document) : table, options.output, diagnostics);
  reporter.report(diagnostics);
  return std::max(run.status, written);
}

}  // namespace reshardctl
