// `reshardctl check-pass LOG...`: for each pair of programs a log prints
// before and after the partition pass (pass instrumentation's banners, see
// syntax/program_finder.h), run our pass on the before-program and compare
// the result with Paddle's after-program as `diff` does (by structure:
// renumbering is no difference). Each difference is an error at its place in
// the log: Paddle's op where it has one, else the line of the before-program
// our op came from.
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "passes/partition_pass.h"
#include "passes/pass_runner.h"
#include "passes/program_diff.h"
#include "report/diagnostic_formats.h"
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
};

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

// One error per change, placed in the log. `theirs` is the old side of the
// diff, `ours` the new.
void reportChanges(const ProgramDiff& diff, const std::string& theirs, DiagnosticEngine& diagnostics) {
  for (const OpChange& change : diff.changes) {
    switch (change.kind) {
      case OpChange::Kind::Removed:
        diagnostics.error(change.before->location(), 1,
                          fmt::format("Paddle's pass has this {}; ours does not", change.before->name()))
            .code = kPassDiffersCode;
        break;
      case OpChange::Kind::Added:
        diagnostics.error(placeOfOurs(change.after), 1,
                          fmt::format("our pass inserts a {} for this op, which Paddle's output ({}) lacks",
                                      change.after->name(), theirs))
            .code = kPassDiffersCode;
        break;
      case OpChange::Kind::Changed:
        diagnostics.error(change.before->location(), 1,
                          fmt::format("this {} differs from ours{}", change.before->name(), differencesText(change)))
            .code = kPassDiffersCode;
        break;
    }
  }
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
    if (status == kExitOk) {
      diff = diffPrograms(*theirs.program, *ours.program, {options_.ignoredAttributes});
      reportChanges(*diff, theirsName, diagnostics);
      if (!diff->equal()) status = kExitBadInput;
    }
    reporter_.report(diagnostics);
    const std::string verdict = !diff ? "not compared" : diff->equal() ? "same as Paddle's" : formatDiffStat(*diff);
    reporter_.summary(standardError(), fmt::format("{}#{} -> {}: {}", file->path, pair.before, theirsName,
                                                   trim(verdict)));
    return status;
  }

  const CheckPassOptions& options_;
  Reporter& reporter_;
  size_t pairs_ = 0;
};

int runCheckPass(const CheckPassOptions& options, Reporter& reporter) {
  const std::vector<std::string> files = expandInputs(options.inputs, reporter);
  CheckPassRun run(options, reporter);
  // Each log is one input: its programs are paired, not taken one by one.
  const InputRun inputs = forEachInput(files, options.inputs, reporter, standardError(), std::ref(run),
                                       SeveralPrograms::WholeFile);
  // As -r over a folder with no dump warns: nothing was checked, which is no failure.
  if (inputs.status != kExitUsage && run.pairs() == 0 && inputs.files > 0)
    reporter.toolWarning(fmt::format("nothing checked: no log among {} prints programs before and after {} "
                                     "(pass instrumentation's banners, e.g. FLAGS_print_ir)",
                                     plural(inputs.files, "file"), options.pass));
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
