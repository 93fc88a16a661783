// `reshardctl list`: read a file → find the programs it holds
// (syntax/program_finder.h) → a table or JSON. Nothing is parsed, so a log of
// many programs is listed in about the time it takes to read it.
#include <memory>

#include <nlohmann/json.hpp>

#include "syntax/program_finder.h"
#include "tool/commands.h"
#include "tool/program_io.h"

namespace reshardctl {

namespace {

std::string programsJson(const SourceFile& source, const std::vector<FoundProgram>& programs) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (size_t i = 0; i < programs.size(); ++i) {
    const FoundProgram& p = programs[i];
    list.push_back({{"index", i + 1},
                    {"line", p.line},
                    {"end_line", p.endLine},
                    {"label", p.label},
                    {"pass", p.pass.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(p.pass)},
                    {"ops", p.opCount},
                    {"distributed", p.distributed},
                    {"closed", p.closed}});
  }
  nlohmann::ordered_json out = {{"file", source.name()}, {"programs", std::move(list)}};
  // Labels are bytes from a log: replace what is not UTF-8 rather than fail.
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

int runList(const ListOptions& options) {
  DiagnosticEngine diagnostics;
  int status = kExitOk;
  std::shared_ptr<SourceFile> source = readSourceFile(options.input, diagnostics, &status);
  if (source) {
    diagnostics.setSource(source.get());
    std::vector<FoundProgram> programs = findPrograms(source->text());
    if (programs.empty()) {
      diagnostics.error("no program found in '" + source->name() +
                        "': expected a line ending in '{' followed by op lines");
      status = kExitBadInput;
    } else {
      std::string text = options.json ? programsJson(*source, programs) : formatProgramTable(programs);
      status = writeTextOutput(text, options.output, diagnostics);
    }
  }
  diagnostics.flush(stderr);
  return status;
}

}  // namespace reshardctl
