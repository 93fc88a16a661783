// `reshardctl apply`: read → partition pass → print. With --check, list what
// the pass would insert and write nothing; with --diff, print the change as
// a unified diff and write nothing; with --in-place, write each input back.
#include <cstdio>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "passes/check_report.h"
#include "passes/partition_pass.h"
#include "report/json_export.h"
#include "report/plan_output.h"
#include "report/reshard_report.h"
#include "report/result_json.h"
#include "report/unified_diff.h"
#include "syntax/printer.h"
#include "tool/commands.h"
#include "tool/program_io.h"

namespace reshardctl {

namespace {

// `--stats`: how many reshards the pass inserted and what their plans cost.
// Only those still in the program count: folding may erase some again.
void printStats(const Program& program, const PartitionResult& result, const CostModel& costs, bool check,
                Reporter& reporter) {
  const std::set<const Operation*> inserted(result.inserted.begin(), result.inserted.end());
  std::vector<Operation*> kept;
  walkOps(*program.body(), [&](Operation* op) {
    if (inserted.count(op) != 0) kept.push_back(op);
  });
  const std::vector<ReshardReport> reports =
      planReshardOps(program, kept, costs, [](const Operation&) { return size_t{0}; });
  size_t unplanned = 0;
  for (const ReshardReport& report : reports) unplanned += report.plan ? 0 : 1;
  reporter.summary(standardError(), fmt::format("apply: {} {}{}", check ? "would insert" : "inserted", planTotalText(reports),
                                       unplanned == 0 ? "" : fmt::format(" ({} could not be planned)", unplanned)));
}

// Writes `text` to standard output; a failure is reported with its reason.
bool writeStdout(const std::string& text, Reporter& reporter) {
  DiagnosticEngine diagnostics = reporter.engine();
  if (writeTextOutput(text, "-", diagnostics) == kExitOk) return true;
  reporter.report(diagnostics);
  return false;
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
    DiagnosticEngine diagnostics = reporter_.engine();
    LoadedProgram loaded = loadProgram(input, diagnostics);  // outlives the report of its diagnostics
    const InputOutcome outcome =
        loaded.program ? applyTo(input.path, loaded, diagnostics) : InputOutcome{loaded.failure, "failed"};
    reporter_.report(diagnostics);
    return outcome;
  }

  const CheckTotals& totals() const { return totals_; }

 private:
  InputOutcome applyTo(const std::string& path, LoadedProgram& loaded, DiagnosticEngine& diagnostics) {
    // --check names operands as the input does: number before the pass renumbers.
    std::optional<ValueNames> names;
    if (options_.check) names.emplace(*loaded.program);
    PartitionResult result = applyPartitionPass(*loaded.program, diagnostics, options_.pass);
    if (!result.ok) return {kExitBadInput, "failed"};
    const size_t count = result.inserted.size();
    InputOutcome outcome{kExitOk, options_.diff ? neededReshardsSummary(count)
                                                : fmt::format("{} reshard{} inserted", count, count == 1 ? "" : "s")};
    if (options_.check) outcome = check(loaded, result, *names);
    if (options_.diff && outcome.status != kExitUsage) {
      const int written = diff(loaded) ? outcome.status : kExitUsage;
      outcome.status = written;
    } else if (!options_.check && !options_.diff) {
      outcome.status = options_.inPlace ? writeProgramInPlace(*loaded.program, loaded, path, diagnostics)
                                        : writeProgram(*loaded.program, options_.output, diagnostics);
    }
    if (outcome.status != kExitUsage && options_.stats) printStats(*loaded.program, result, options_.costs, options_.check, reporter_);
    return outcome;
  }

  // As formatters' --check: 0 when the pass would change nothing, 1 when it would.
  InputOutcome check(const LoadedProgram& loaded, const PartitionResult& result, const ValueNames& names) {
    const std::vector<NeededReshard> needed = neededReshards(result, names);
    totals_.reshards += needed.size();
    totals_.inputsChanged += needed.empty() ? 0 : 1;
    const std::string summary = neededReshardsSummary(needed.size());
    if (options_.json) {
      nlohmann::ordered_json reshards = nlohmann::ordered_json::array();
      for (const NeededReshard& one : needed) reshards.push_back(neededReshardJson(*loaded.source, one));
      totals_.files.push_back({{"file", loaded.source->name()},
                               {"program", programIndexJson(loaded.index)},
                               {"reshards", std::move(reshards)}});
    }
    std::vector<Diagnostic> findings;
    for (const NeededReshard& one : needed)
      findings.push_back(neededReshardDiagnostic(one, loaded.program->generation()));
    if (!options_.json || reporter_.format() != DiagnosticFormat::Text)
      reporter_.reportFindings(loaded.source.get(), findings, standardOutput());
    return {needed.empty() ? kExitOk : kExitBadInput, summary};
  }

  // `--diff`: the input's text against what apply would write (in a log, the
  // log with that program replaced, as --in-place writes it), as `patch -p0`
  // applies it in the directory the input was named from.
  bool diff(const LoadedProgram& loaded) {
    const std::string& name = loaded.source->name();
    const std::string text = unifiedDiff(loaded.source->text(), fileTextWithProgram(*loaded.program, loaded), name, name,
                                         UnifiedDiffOptions{3, reporter_.colorStdout()});
    return writeStdout(text, reporter_);
  }

  const ApplyOptions& options_;
  Reporter& reporter_;
  CheckTotals totals_;
};

// "in 1 of 2 files", or with the programs of logs taken in turn "in 1 of 5
// programs of 3 files".
std::string inputsText(size_t changed, const InputRun& run) {
  const auto plural = [](size_t n, const char* noun) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); };
  if (run.programs == run.files) return fmt::format("in {} of {}", changed, plural(run.files, "file"));
  return fmt::format("in {} of {} of {}", changed, plural(run.programs, "program"), plural(run.files, "file"));
}

}  // namespace

int runApply(const ApplyOptions& options, Reporter& reporter) {
  std::vector<std::string> files;
  if (!expandInputs(options.inputs, reporter, &files)) return kExitUsage;
  const bool several = files.size() > 1 || options.inputs.recursive;
  if (several && !options.check && !options.inPlace && !options.diff) {
    reporter.toolError("several inputs need --check, --diff or --in-place (one output cannot hold them all)");
    return kExitUsage;
  }
  if (options.inPlace && std::find(files.begin(), files.end(), "-") != files.end()) {
    reporter.toolError("--in-place needs an input file, not standard input");
    return kExitUsage;
  }
  ApplyRun run(options, reporter);
  // --check's lines are its result (stdout), unless that is the JSON document.
  OutputSink& summaries = options.check && !options.json ? standardOutput() : standardError();
  // --in-place writes a file back whole: a log's program must be chosen.
  const InputRun inputs = forEachFile(files, options.inputs, reporter, summaries, std::ref(run),
                                      options.inPlace ? SeveralPrograms::WholeFile : SeveralPrograms::InTurn);
  const CheckTotals& totals = run.totals();
  if (options.check && !options.json) {
    if (inputs.programs > 1)
      reporter.summary(standardOutput(), fmt::format("{} {}", neededReshardsSummary(totals.reshards),
                                           inputsText(totals.inputsChanged, inputs)));
    else if (totals.reshards > 0 && !writeStdout(neededReshardsSummary(totals.reshards) + "\n", reporter))
      return kExitUsage;
  }
  if (options.check && options.json) {
    nlohmann::ordered_json document = documentJson("check");
    document["files"] = totals.files;
    document["reshards"] = totals.reshards;
    if (!writeStdout(dumpJson(document), reporter)) return kExitUsage;
  }
  return inputs.status;
}

}  // namespace reshardctl
