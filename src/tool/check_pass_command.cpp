// `reshardctl check-pass LOG...`: for each pair of programs a log prints
// before and after the partition pass (pass instrumentation's banners, see
// syntax/program_finder.h), run our pass on the before-program and compare
// the result with Paddle's after-program as `diff` does (by structure:
// renumbering is no difference). Each difference is an error at its place in
// the log: Paddle's op where it has one, else the line of the before-program
// our op came from. With --json, one document on standard output
// (schema/check-pass.schema.json): each log's pairs, each with its status and
// `diff --json`'s changes; the errors still go to standard error.
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "passes/partition_pass.h"
#include "passes/pass_runner.h"
#include "passes/program_diff.h"
#include "report/diagnostic_formats.h"
#include "report/json_export.h"
#include "report/result_json.h"
#include "support/failure.h"
#include "support/text.h"
#include "syntax/program_finder.h"
#include "tool/cli.h"
#include "tool/cli_support.h"
#include "tool/input_files.h"
#include "tool/reporting.h"

namespace reshardctl {

namespace {

struct CheckPassOptions {
  InputSelection inputs;
  std::string pass = "apply_partition_pass";  // the pass whose printouts are paired
  PartitionOptions partition;                 // our pass's switches, as apply takes them
  std::vector<std::string> ignoredAttributes;
  bool json = false;  // one document on stdout (schema/check-pass.schema.json)
};

using Json = nlohmann::ordered_json;

// Programs i and j (1-based) of a log: printed before and after the pass.
struct PassPair {
  size_t before = 0, after = 0;
};

// Each before-program of `pass` with the first after-program of it that
// follows, before the next before-program of it. One pass over the list.
std::vector<PassPair> passPairs(const std::vector<FoundProgram>& programs, const std::string& pass) {
  std::vector<PassPair> pairs;
  size_t pending = 0;
  for (size_t i = 1; i <= programs.size(); ++i) {
    const FoundProgram& program = programs[i - 1];
    if (program.pass != pass) continue;
    const PassStage stage = passStageOf(program.label);
    if (stage == PassStage::Before) pending = i;
    if (stage == PassStage::After && pending != 0) pairs.push_back({std::exchange(pending, 0), i});
  }
  return pairs;
}

// Program `number` of `file`, parsed and verified.
LoadedProgram loadNumbered(const std::shared_ptr<const InputFile>& file, size_t number, DiagnosticEngine& diagnostics) {
  return loadProgram(InputProgram{file->path, std::to_string(number), fmt::format("{}#{}", file->path, number),
                                  number, true, file},
                     diagnostics);
}

std::string differencesText(const OpChange& change) {
  return change.differences.empty() ? "" : fmt::format(": {}", fmt::join(change.differences, ", "));
}

// Where an op of ours sits in the log: its own line, which it has unless
// our pass made it (a reshard); then its first user's, following reshards
// and combines made with it; the start of the log when nothing has one.
size_t placeOfOurs(const Operation* op) {
  for (size_t hops = 0; op != nullptr && op->location() == 0 && hops < 8; ++hops) {
    const Operand* use = op->numResults() > 0 ? op->result(0)->firstUse : nullptr;
    op = use != nullptr ? use->owner() : nullptr;
  }
  return op != nullptr ? op->location() : 0;
}

// One change of a pair, placed in the log: an error on standard error and an
// entry of the JSON document alike.
struct PassDifference {
  std::string_view kind;  // "added", "removed", "changed" (diff.schema.json's kinds)
  std::string_view op;
  size_t offset = 0;      // where in the log (0: nowhere)
  std::string message;
};

// The changes of `diff`, where `theirs` is the old side (named as Paddle's
// output) and ours the new.
std::vector<PassDifference> passDifferences(const ProgramDiff& diff, const std::string& theirs) {
  std::vector<PassDifference> found;
  for (const OpChange& change : diff.changes) {
    switch (change.kind) {
      case OpChange::Kind::Removed:
        found.push_back({"removed", change.before->name(), change.before->location(),
                         fmt::format("Paddle's pass has this {}; ours does not", change.before->name())});
        break;
      case OpChange::Kind::Added:
        found.push_back({"added", change.after->name(), placeOfOurs(change.after),
                         fmt::format("our pass inserts a {} for this op, which Paddle's output ({}) lacks",
                                     change.after->name(), theirs)});
        break;
      case OpChange::Kind::Changed:
        found.push_back({"changed", change.before->name(), change.before->location(),
                         fmt::format("this {} differs from ours{}", change.before->name(), differencesText(change))});
        break;
    }
  }
  return found;
}

class CheckPassRun {
 public:
  CheckPassRun(const CheckPassOptions& options, Reporter& reporter) : options_(options), reporter_(reporter) {}

  InputOutcome operator()(const InputProgram& input) {
    DiagnosticEngine diagnostics = reporter_.engine();
    if (reportReadFailure(*input.file, diagnostics)) {
      reporter_.report(diagnostics);
      return {input.file->failure, "failed"};
    }
    document_["files"].push_back({{"file", input.file->source->name()}, {"pairs", Json::array()}});
    const std::vector<PassPair> pairs = passPairs(input.file->programs, options_.pass);
    int status = kExitOk;
    size_t different = 0;
    for (const PassPair& pair : pairs) {
      const int pairStatus = check(input.file, pair);
      status = std::max(status, pairStatus);
      different += pairStatus == kExitOk ? 0 : 1;
    }
    pairs_ += pairs.size();
    if (pairs.empty()) return {kExitOk, fmt::format("no pair of programs before and after {}", options_.pass)};
    return {status, different == 0 ? fmt::format("{} as Paddle's", plural(pairs.size(), "pair"))
                                   : fmt::format("{} of {} differ from Paddle's", different, plural(pairs.size(), "pair"))};
  }

  size_t pairs() const { return pairs_; }
  const Json& document() const { return document_; }

 private:
  // Our pass on the before-program against Paddle's after-program.
  int check(const std::shared_ptr<const InputFile>& file, const PassPair& pair) {
    DiagnosticEngine diagnostics = reporter_.engine();
    LoadedProgram ours = loadNumbered(file, pair.before, diagnostics);
    LoadedProgram theirs = loadNumbered(file, pair.after, diagnostics);
    const std::string theirsName = fmt::format("{}#{}", file->path, pair.after);
    int status = ours.program && theirs.program ? kExitOk : std::max(ours.failure, theirs.failure);
    if (status == kExitOk) {
      const PartitionResult result = runPass("apply_partition_pass", *ours.program, [&](Program& program) {
        return applyPartitionPass(program, diagnostics, options_.partition);
      });
      if (!result.ok) status = kExitBadInput;
    }
    std::optional<ProgramDiff> diff;
    std::vector<PassDifference> differences;
    if (status == kExitOk) {
      diff = diffPrograms(*theirs.program, *ours.program, {options_.ignoredAttributes});
      differences = passDifferences(*diff, theirsName);
      for (const PassDifference& difference : differences)
        diagnostics.error(difference.offset, 1, difference.message).code = kPassDiffersCode;
      if (!diff->equal()) status = kExitBadInput;
    }
    reporter_.report(diagnostics);
    if (options_.json)
      document_["files"].back()["pairs"].push_back(pairJson(pair, diff, differences, *file->source));
    const std::string verdict = !diff ? "not compared" : diff->equal() ? "same as Paddle's" : formatDiffStat(*diff);
    reporter_.summary(standardError(), fmt::format("{}#{} -> {}: {}", file->path, pair.before, theirsName,
                                                   trim(verdict)));
    return status;
  }

  // A pair's entry: its programs, how it went, each difference where the
  // log shows it (as its error), and the diff of Paddle's program (before)
  // against ours (after) as `diff --json` writes it.
  static Json pairJson(const PassPair& pair, const std::optional<ProgramDiff>& diff,
                       const std::vector<PassDifference>& differences, const SourceFile& log) {
    Json placed = Json::array();
    for (const PassDifference& difference : differences)
      placed.push_back({{"kind", difference.kind},
                        {"op", difference.op},
                        {"location", locationJson(log, difference.offset)},
                        {"message", difference.message}});
    return {{"before", pair.before},
            {"after", pair.after},
            {"status", !diff ? "not-compared" : diff->equal() ? "same" : "differs"},
            {"differences", placed},
            {"diff", diff ? programDiffJson(*diff, log, log) : Json()}};
  }

  const CheckPassOptions& options_;
  Reporter& reporter_;
  size_t pairs_ = 0;
  Json document_ = [this] {
    Json document = documentJson("check-pass");
    document["pass"] = options_.pass;
    document["files"] = Json::array();
    return document;
  }();
};

int runCheckPass(const CheckPassOptions& options, Reporter& reporter) {
  const std::vector<std::string> files = expandInputs(options.inputs, reporter);
  CheckPassRun run(options, reporter);
  // Each log is one input: its programs are paired, not taken one by one.
  const InputRun inputs = forEachInput(files, options.inputs, reporter, standardError, std::ref(run),
                                       SeveralPrograms::WholeFile);
  // As -r over a folder with no dump warns: nothing was checked, which is no failure.
  if (inputs.status != kExitUsage && run.pairs() == 0 && inputs.files > 0)
    reporter.toolWarning(fmt::format("nothing checked: no log among {} prints programs before and after {} "
                                     "(pass instrumentation's banners, e.g. FLAGS_print_ir)",
                                     plural(inputs.files, "file"), options.pass));
  if (options.json && inputs.status != kExitUsage) {
    standardOutput().write(dumpJson(run.document()));
    standardOutput().flush();  // a failure is reported once, by runCli
  }
  return inputs.status;
}

SubcommandRunner defineCheckPass(CLI::App& command, ReportingOptions& reporting) {
  auto options = std::make_shared<CheckPassOptions>();
  addInputFlags(command, options->inputs,
                "Logs to read ('-' = standard input, the default); with -r, directories too");
  command.add_option("--pass", options->pass, "The pass whose before and after printouts are compared")
      ->default_str("apply_partition_pass");
  addPartitionFlags(command, options->partition);
  command.add_option("--ignore-attr", options->ignoredAttributes,
                     "Leave this attribute out of the comparison (repeatable)")
      ->allow_extra_args(false);
  command.add_flag("--json", options->json,
                   "Also a document on stdout: each log's pairs, how each went and its changes "
                   "(schema/check-pass.schema.json)");
  addReportingFlags(command, reporting);
  command.footer(fmt::format("{}\nExit status: 0 every pair as Paddle's, 1 a difference (an error at its line "
                             "in the log) or bad input, {}. A log with no such pair is passed over with a note.",
                             kSeveralInputs, kUsageExit));
  return [options](Reporter& reporter) { return runCheckPass(*options, reporter); };
}

}  // namespace

const SubcommandSpec kCheckPassSubcommand{"check-pass",
                                          "Run our partition pass on each program a log prints before "
                                          "apply_partition_pass and compare with Paddle's program after it; "
                                          "exit 1 on a difference",
                                          defineCheckPass};

}  // namespace reshardctl
