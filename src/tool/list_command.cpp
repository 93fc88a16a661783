// `reshardctl list`: read each file → find the programs it holds
// (syntax/program_finder.h) → parse each (its reshards, those apply would
// insert, their cost) → a table (one per file, under its name when there are
// several) or one JSON document. Each program is parsed once and planned
// once, so the work is linear in the file; `--no-reshards` parses nothing,
// and a log of many programs is then listed in about the time to read it.
#include <memory>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "passes/partition_pass.h"
#include "passes/pass_runner.h"
#include "report/diagnostic_formats.h"
#include "report/json_export.h"
#include "report/reshard_report.h"
#include "report/result_json.h"
#include "reshard/cost_model.h"
#include "support/op_names.h"
#include "support/escape.h"
#include "syntax/program_finder.h"
#include "tool/cli.h"
#include "tool/cli_support.h"
#include "tool/input_files.h"
#include "tool/program_output.h"
#include "tool/reporting.h"

namespace reshardctl {

namespace {

using Json = nlohmann::ordered_json;

// `reshardctl list FILE...`: the programs each file (a log) holds, one a line.
struct ListOptions {
  InputSelection inputs;  // files, not programs: each is listed whole
  std::string output = "-";
  bool json = false;  // schema/list.schema.json
  bool reshards = true;  // parse each program: its reshards, those apply would insert, their cost (--no-reshards: not)
  PartitionOptions pass;  // the partition pass's switches, for the reshard columns
  CostModel costs;        // the cost model, for the reshard columns
};

// Program `number` of `file` parsed; its reshards, and what apply would add
// and what that costs (as `apply --stats` counts: only inserted reshards
// still in the program). Diagnostics (a program that does not parse) go to
// `diagnostics`. A program the file ends inside is not parsed: its line
// already says it is cut, and a log of a crashed run is still listed whole.
ProgramReshards reshardsOf(const std::shared_ptr<const InputFile>& file, size_t number, const ListOptions& options,
                           DiagnosticEngine& diagnostics) {
  // number 0: the whole text as a fragment, which has no found program to be cut short
  if (number != 0 && !file->programs[number - 1].closed) return ProgramReshards{.loaded = false, .skipped = true};
  const size_t index = file->programs.size() > 1 ? number : 0;
  LoadedProgram loaded = loadProgram(
      InputProgram{file->path, std::to_string(number), file->path, index, false, file}, diagnostics);
  ProgramReshards counts;
  if (!loaded.program) return counts;
  walkOps(*loaded.program->body(), [&](Operation* op) { counts.existing += op->name() == kReshardOp ? 1 : 0; });
  const PartitionResult result = runPass("apply_partition_pass", *loaded.program, [&](Program& program) {
    return applyPartitionPass(program, diagnostics, options.pass);
  });
  if (!result.ok) return counts;
  const PlanTotals sum = planInsertedReshards(*loaded.program, result, options.costs);
  counts.needed = sum.reshards;
  counts.estUs = sum.estUs;
  counts.loaded = true;
  return counts;
}

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

// The three columns in a program's JSON entry; null where it was not parsed
// (--no-reshards, it does not parse, or the file ends inside it).
void addReshardsJson(const ProgramReshards& reshards, Json& entry) {
  const bool known = reshards.loaded;
  entry["reshards"] = known ? Json(reshards.existing) : Json();
  entry["apply_would_insert"] = known ? Json(reshards.needed) : Json();
  entry["est_us"] = known ? Json(reshards.estUs) : Json();
}

int runList(const ListOptions& options, Reporter& reporter) {
  Json document = documentJson("list");
  document["files"] = Json::array();
  std::string table;
  // A file's programs are what is listed: each file is one input, whole.
  const std::vector<std::string> files = expandInputs(options.inputs, reporter);
  const InputRun run = forEachInput(
      files, options.inputs, reporter, standardError,
      [&](const InputProgram& input) {
        DiagnosticEngine diagnostics = reporter.engine();
        if (reportReadFailure(*input.file, diagnostics)) {  // unreadable, or cut (too large, binary)
          reporter.report(diagnostics);
          return InputOutcome{input.file->failure, ""};
        }
        const SourceFile* source = input.file->source.get();
        diagnostics.setSource(source);
        // With --fragment, a file of op lines is listed whole, as it is read.
        const bool wholeFragment = input.file->programs.empty() && input.file->fragment;
        const std::vector<FoundProgram> programs =
            wholeFragment ? std::vector<FoundProgram>{wholeTextAsFragment(source->text())} : input.file->programs;
        int status = kExitOk;
        if (programs.empty()) {
          diagnostics.error("no program found in '" + source->name() + "': " + whyNoProgram(source->text()))
              .code = kNoProgramCode;
          status = kExitBadInput;
        }
        // The document only when asked: nlohmann's objects weigh about 2 KB a
        // program, 400 MB for a log of 200,000 empty programs listed as text.
        if (options.json)
          document["files"].push_back({{"file", source->name()}, {"programs", programsJson(*source, programs)}});
        std::vector<ProgramReshards> reshards;
        for (size_t i = 1; i <= programs.size(); ++i) {
          reshards.push_back(options.reshards ? reshardsOf(input.file, wholeFragment ? 0 : i, options, diagnostics)
                                              : ProgramReshards{});
          if (options.json) addReshardsJson(reshards.back(), document["files"].back()["programs"][i - 1]);
          if (options.reshards && !reshards.back().loaded && !reshards.back().skipped)
            status = std::max(status, int{kExitBadInput});
        }
        if (!programs.empty()) {
          if (input.oneOfSeveral) table += (table.empty() ? "" : "\n") + terminalLine(source->name()) + ":\n";
          table += formatProgramTable(programs, options.reshards ? &reshards : nullptr);
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

SubcommandRunner defineList(CLI::App& command, ReportingOptions& reporting) {
  auto options = std::make_shared<ListOptions>();
  addInputFlags(command, options->inputs,
                "Files to read: logs or dumps ('-' = standard input, the default); with -r, directories too");
  addOutput(command, options->output);
  command.add_flag("--json", options->json, "Write JSON instead of a table (schema/list.schema.json)");
  // Two flags on one switch; CLI11 runs the callbacks in this order, so with both --no-reshards wins.
  command.add_flag_callback(
      "--reshards", [options] { options->reshards = true; },
      "Parse each program for three columns (the default): the reshards it holds, those apply would insert "
      "and their estimated cost in microseconds (est_us)");
  command.add_flag_callback("--no-reshards", [options] { options->reshards = false; },
                            "Parse nothing: no reshard columns, listed in about the time to read the files");
  addPartitionFlags(command, options->pass);
  addReportingFlags(command, reporting);
  command.footer(fmt::format("{}\nExit status: 0 listed, 1 no program found or a program that does not parse, {}.", kSeveralInputs, kUsageExit));
  return [options](Reporter& reporter) { return runList(*options, reporter); };
}

}  // namespace

const SubcommandSpec kListSubcommand{"list",
                                     "List the programs each file holds (a training log, a dump of one program "
                                     "per pass): number, lines, op count, distributed or not, the reshards it holds "
                                     "and those apply would insert with their cost, the pass and label that name it",
                                     defineList};

}  // namespace reshardctl
