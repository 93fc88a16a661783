// `reshardctl apply`: read → partition pass → one of four modes (ApplyMode):
// write the result, list what the pass would insert (--check), print the
// change as a unified diff (--diff), or write each input back (--in-place).
#include <cstdio>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "passes/check_report.h"
#include "passes/partition_pass.h"
#include "report/json_export.h"
#include "report/plan_output.h"
#include "report/reshard_report.h"
#include "report/result_json.h"
#include "report/unified_diff.h"
#include "reshard/cost_model.h"
#include "support/failure.h"
#include "support/text.h"
#include "syntax/printer.h"
#include "tool/cli.h"
#include "tool/cli_support.h"
#include "tool/input_files.h"
#include "tool/left_to_exit.h"
#include "tool/program_output.h"
#include "tool/reporting.h"

namespace reshardctl {

namespace {

// What apply does with each result; one mode per run, chosen at parse time.
enum class ApplyMode {
  Write,    // the result to -o (standard output by default)
  Check,    // write nothing; list what would be inserted, exit 1 if anything
  Diff,     // write nothing; a unified diff from each input to its result
  InPlace,  // write each result back to its input file
};

struct ApplyOptions {
  InputSelection inputs;  // several only with --check, --in-place or --diff; with --program
  std::string output = "-";
  ApplyMode mode = ApplyMode::Write;
  bool stats = false;  // report the inserted reshards and their planned cost on stderr
  CostModel costs;     // for the stats
  PartitionOptions pass;  // the partition pass's switches
  bool json = false;     // with --check: the findings as JSON (schema/check.schema.json)
};

// `--stats`: how many reshards the pass inserted and what their plans cost,
// in every --error-format (Reporter::statistic).
// Only those still in the program count: folding may erase some again.
void printStats(const Program& program, const PartitionResult& result, const CostModel& costs, bool check,
                Reporter& reporter) {
  const PlanTotals sum = planInsertedReshards(program, result, costs);
  reporter.statistic(fmt::format("apply: {} {}{}", check ? "would insert" : "inserted", sum.text(),
                                 sum.unplanned == 0 ? "" : fmt::format(" ({} could not be planned)", sum.unplanned)));
}

// Writes what `render` writes to standard output; a failure is reported with its reason.
bool writeStdout(const std::function<bool(OutputSink&)>& render, Reporter& reporter) {
  DiagnosticEngine diagnostics = reporter.engine();
  if (writeOutput("-", diagnostics, render) == kExitOk) return true;
  reporter.report(diagnostics);
  return false;
}

bool writeStdout(const std::string& text, Reporter& reporter) {
  return writeStdout(
      [&](OutputSink& out) {
        out.write(text);
        return !out.failed();
      },
      reporter);
}

// What one run over several inputs gathers for its closing line and --json.
struct CheckTotals {
  size_t reshards = 0;
  size_t inputsChanged = 0;
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
};

class ApplyRun {
 public:
  ApplyRun(const ApplyOptions& options, Reporter& reporter) : options_(options), reporter_(reporter) {}

  InputOutcome operator()(const InputProgram& input) {
    named_ = input.oneOfSeveral;
    finished_.reset();  // the last input's program goes first: one program in memory at a time
    DiagnosticEngine diagnostics = reporter_.engine();
    LoadedProgram loaded = loadProgram(input, diagnostics);  // outlives the report of its diagnostics
    const InputOutcome outcome =
        loaded.program ? applyTo(input.path, loaded, diagnostics) : InputOutcome{loaded.failure, "failed"};
    reporter_.report(diagnostics);
    finished_ = std::move(loaded.program);
    return outcome;
  }

  const CheckTotals& totals() const { return totals_; }
  // The last input's program, once the run is over (tool/left_to_exit.h).
  std::unique_ptr<Program> takeFinished() { return std::move(finished_); }

 private:
  InputOutcome applyTo(const std::string& path, LoadedProgram& loaded, DiagnosticEngine& diagnostics) {
    // --check names operands as the input does: numbered before the pass renumbers.
    std::optional<ValueNames> names;
    if (options_.mode == ApplyMode::Check) names.emplace(*loaded.program);
    PartitionResult result = applyPartitionPass(*loaded.program, diagnostics, options_.pass);
    if (!result.ok) return {kExitBadInput, "failed"};
    const InputOutcome outcome = finish(path, loaded, result, names, diagnostics);
    if (outcome.status != kExitUsage && options_.stats)
      printStats(*loaded.program, result, options_.costs, options_.mode == ApplyMode::Check, reporter_);
    return outcome;
  }

  // The mode's way from the pass's result to what it writes.
  InputOutcome finish(const std::string& path, LoadedProgram& loaded, const PartitionResult& result,
                      const std::optional<ValueNames>& names, DiagnosticEngine& diagnostics) {
    const size_t count = result.inserted.size();
    switch (options_.mode) {
      case ApplyMode::Write:
        return {writeProgram(*loaded.program, options_.output, diagnostics), insertedSummary(count)};
      case ApplyMode::InPlace:
        return {writeProgramInPlace(*loaded.program, loaded, path, diagnostics), insertedSummary(count)};
      case ApplyMode::Check: return check(loaded, result, *names);
      case ApplyMode::Diff:
        return {diff(loaded) ? kExitOk : kExitUsage, named_ ? neededReshardsSummary(count) : std::string()};
    }
    return {kExitUsage, "failed"};
  }

  // The summary line, made only where forEachInput prints it (an input named among several).
  std::string insertedSummary(size_t count) const {
    return named_ ? plural(count, "reshard") + " inserted" : std::string();
  }

  // As formatters' --check: 0 when the pass would change nothing, 1 when it would.
  // The findings are written as they are made, a batch at a time where they
  // are lines of text (memory: a batch, not one per inserted reshard); the
  // other formats' consumers take them in one call.
  InputOutcome check(const LoadedProgram& loaded, const PartitionResult& result, const ValueNames& names) {
    constexpr size_t kTextBatch = 256;
    const bool shown = !options_.json || reporter_.format() != DiagnosticFormat::Text;
    const bool batched = reporter_.format() == DiagnosticFormat::Text;
    nlohmann::ordered_json reshards = nlohmann::ordered_json::array();
    std::vector<Diagnostic> findings;
    size_t count = 0;
    forEachNeededReshard(result, names, [&](const NeededReshard& one) {
      ++count;
      if (options_.json) reshards.push_back(neededReshardJson(*loaded.source, one));
      if (!shown) return;
      findings.push_back(neededReshardDiagnostic(one, loaded.program->generation()));
      if (batched && findings.size() == kTextBatch) {
        reporter_.reportFindings(loaded.source.get(), findings, standardError());
        findings.clear();
      }
    });
    if (shown) reporter_.reportFindings(loaded.source.get(), findings, standardError());
    totals_.reshards += count;
    totals_.inputsChanged += count == 0 ? 0 : 1;
    if (options_.json)
      totals_.files.push_back({{"file", loaded.source->name()},
                               {"program", programIndexJson(loaded.index)},
                               {"reshards", std::move(reshards)}});
    return {count == 0 ? kExitOk : kExitBadInput, neededReshardsSummary(count)};
  }

  // `--diff`: the input's text against what apply would write (in a log, the
  // log with that program replaced, as --in-place writes it), as `patch -p0`
  // applies it in the directory the input was named from.
  // The patch is written hunk by hunk, never held whole; the graph goes once
  // printed (unless --stats still plans from it): the text diff needs only
  // the two texts, each mapped (the printed one from a temporary file) and
  // let go behind the diff as it reads: it holds their line tables.
  bool diff(LoadedProgram& loaded) {
    const std::string& name = loaded.source->name();
    const SourceFile after = fileWithProgram(*loaded.program, loaded);
    if (!options_.stats) loaded.program.reset();
    UnifiedDiffOptions layout;
    layout.color = reporter_.colorStdout();
    layout.readPast = droppingPagesBehind(*loaded.source, 0, after, 0);
    return writeStdout(
        [&](OutputSink& out) {
          writeUnifiedDiff(loaded.source->text(), after.text(), name, name, layout, out);
          return !out.failed();
        },
        reporter_);
  }

  const ApplyOptions& options_;
  Reporter& reporter_;
  CheckTotals totals_;
  bool named_ = false;  // the input at hand is named among several: its summary line is printed
  std::unique_ptr<Program> finished_;  // the last input's program, until the next input starts
};

// "in 1 of 2 files", or with the programs of logs taken in turn "in 1 of 5
// programs of 3 files".
std::string inputsText(size_t changed, const InputRun& run) {
  return fmt::format("in {} of {}", changed, countedIn(run.programs, "program", run.files, "file"));
}

// --check's closing line, or its JSON document.
int finishCheck(const ApplyOptions& options, const CheckTotals& totals, const InputRun& inputs, Reporter& reporter) {
  if (options.json) {
    nlohmann::ordered_json document = documentJson("check");
    document["files"] = totals.files;
    document["reshards"] = totals.reshards;
    return writeStdout(dumpJson(document), reporter) ? inputs.status : kExitUsage;
  }
  if (inputs.programs > 1)
    reporter.summary(standardError(), fmt::format("{} {}", neededReshardsSummary(totals.reshards),
                                        inputsText(totals.inputsChanged, inputs)));
  else if (totals.reshards > 0)
    reporter.summary(standardError(), neededReshardsSummary(totals.reshards));
  return inputs.status;
}

int runApply(const ApplyOptions& options, Reporter& reporter) {
  const std::vector<std::string> files = expandInputs(options.inputs, reporter);
  const bool several = files.size() > 1 || options.inputs.recursive;
  if (several && options.mode == ApplyMode::Write)
    throw Failure(FailureKind::Usage, "several inputs need --check, --diff or --in-place (one output cannot hold them all)");
  if (options.mode == ApplyMode::InPlace && std::find(files.begin(), files.end(), "-") != files.end())
    throw Failure(FailureKind::Usage, "--in-place needs an input file, not standard input");
  ApplyRun run(options, reporter);
  // Findings and summary lines go to standard error, as every command's do
  // (README "Subcommands"); standard output holds only a result: a program,
  // a patch, --check --json's document.
  // --in-place writes a file back whole: a log's program must be chosen.
  const InputRun inputs =
      forEachInput(files, options.inputs, reporter, standardError, std::ref(run),
                  options.mode == ApplyMode::InPlace ? SeveralPrograms::WholeFile : SeveralPrograms::InTurn);
  leaveToExit(run.takeFinished());
  if (options.mode == ApplyMode::Check) return finishCheck(options, run.totals(), inputs, reporter);
  return inputs.status;
}

// The command line's four switches for the mode, before they become one.
struct ApplyFlags : WithCostFlags<ApplyOptions> {
  bool check = false, diff = false, inPlace = false;
};

// The mode the switches name. CLI11 has refused -o with any of them and
// --in-place with --check or --diff already.
ApplyMode modeOf(const ApplyFlags& flags) {
  if (flags.check && flags.diff)
    throw CLI::ValidationError(
        "--check and --diff cannot be combined: --check writes the reshards the pass would insert (or, with "
        "--json, a JSON document) and --diff a patch, to the same standard output; run them one after the other");
  if (flags.check) return ApplyMode::Check;
  if (flags.diff) return ApplyMode::Diff;
  return flags.inPlace ? ApplyMode::InPlace : ApplyMode::Write;
}

SubcommandRunner defineApply(CLI::App& command, ReportingOptions& reporting) {
  auto flags = std::make_shared<ApplyFlags>();
  ApplyOptions& options = flags->options;
  addInputsOutputProgram(command, options.inputs, options.output);
  command.add_flag("--stats", options.stats,
                   "Report on stderr how many reshards were inserted (with --check: would be) and their "
                   "estimated cost");
  addCostModelFlags(command, options.costs, flags->costs);
  addPartitionFlags(command, options.pass);
  CLI::Option* check =
      command.add_flag("--check", flags->check,
                       "Write nothing; list the reshards the pass would insert (as warnings) and exit 1 if any")
          ->excludes("--output");
  CLI::Option* inPlace = command.add_flag("-i,--in-place", flags->inPlace,
                                          "Write the result back to each input file (in a log, over that "
                                          "program's lines only)")
                             ->excludes("--output")
                             ->excludes(check);
  command.add_flag("--diff", flags->diff,
                   "Write nothing; print a unified diff from each input to its result (patch -p0 applies it)")
      ->excludes("--output")
      ->excludes(inPlace);
  command.add_flag("--json", options.json, "With --check: the findings as JSON on stdout (schema/check.schema.json)")
      ->needs(check);
  addJobsOption(command);
  addReportingFlags(command, reporting);
  command.footer(fmt::format("Several inputs (or -r) need --check, --diff or --in-place. {}\nExit status: 0 done "
                             "(--check: nothing to insert), 1 bad input or (--check) reshards would be inserted, {}.",
                             kSeveralInputs, kUsageExit));
  // Runs after CLI11's own checks of the flags, still while parsing.
  command.callback([flags] { flags->options.mode = modeOf(*flags); });
  return runnerWithCosts(flags, runApply);
}

}  // namespace

const SubcommandSpec kApplySubcommand{"apply",
                                      "Run the partition pass: insert dist_op.reshard where an operand's layout "
                                      "differs from what its op needs",
                                      defineApply};

}  // namespace reshardctl
