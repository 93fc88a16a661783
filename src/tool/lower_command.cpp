// `reshardctl lower`: read (→ partition pass with --apply) once → lower it as
// Paddle does for the rank asked (lower/lower_program.h), or a clone of it for
// each rank → one program, one file per rank in a directory, or a log of all
// ranks. Work: one parse and pass, then ranks x (clone + lower); memory: the
// dist program and one rank's.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "lower/lower_program.h"
#include "passes/mix_to_dist.h"
#include "passes/partition_pass.h"
#include "schedule/lowered_ranks.h"
#include "support/failure.h"
#include "syntax/printer.h"
#include "tool/cli.h"
#include "tool/cli_support.h"
#include "tool/input_files.h"
#include "tool/program_output.h"
#include "tool/reporting.h"

namespace reshardctl {

namespace {

struct LowerCommandOptions {
  std::string input = "-";
  std::string output = "-";
  std::string program;
  bool fragment = false;  // --fragment (input_files.h)
  bool apply = false;
  PartitionOptions pass;
  std::optional<int64_t> rank;
  bool allRanks = false;
  LowerStage stage = LowerStage::Dense;
  LoweringKind lowering = LoweringKind::Paddle;
  PaddleRelease release = PaddleRelease::V3_0;
  CostModel costs;  // --lowering=plan: the planner's default model
};

const Choices<LowerStage>& stageChoices() {
  static const Choices<LowerStage> choices = {
      {"reshard", LowerStage::Reshard}, {"pruned", LowerStage::Pruned}, {"dense", LowerStage::Dense}};
  return choices;
}

// The label of a rank's program in a log: the banner Paddle prints after the
// pass (dist_to_dense_pass.cc with FLAGS_print_ir), naming the rank.
// A fragment (--fragment) has no `{` to follow the label: a caption line.
std::string logLabel(int64_t rank, LowerStage stage, bool fragment) {
  const char* pass = stage == LowerStage::Dense    ? "DistToDense Pass"
                     : stage == LowerStage::Pruned ? "remove_other_rank_op_pass"
                                                   : "reshard_op_pass";
  return fmt::format("rank {}: IR after {}{}", rank, pass, fragment ? ":\n" : " = ");
}

// Runs the mix2dist and partition passes (--apply) and the checks every rank's program
// would repeat: lowerable, and holding the rank --rank names (--all-ranks'
// ranks are the program's own). False: diagnosed, or (a rank in no mesh)
// thrown as a usage error.
bool prepareDist(Program& program, const LowerCommandOptions& options, DiagnosticEngine& diagnostics) {
  if (options.apply && !runMixToDistAndPartition(program, diagnostics, options.pass)) return false;
  if (!checkLowerable(program, diagnostics)) return false;
  if (options.rank) {
    const std::vector<int64_t> ranks = programRanks(program);
    if (std::find(ranks.begin(), ranks.end(), *options.rank) == ranks.end())
      throw Failure(FailureKind::Usage, fmt::format("--rank {}: the rank is in no mesh of the program (its ranks: {})",
                                                    *options.rank, fmt::join(ranks, ", ")));
  }
  return true;
}

LowerOptions lowerOptions(int64_t rank, const LowerCommandOptions& options) {
  return LowerOptions{rank, options.stage, options.lowering == LoweringKind::Plan ? &options.costs : nullptr,
                      options.release};
}

// The dist program lowered for `rank`: a clone of its part of it
// (lower_program.h's lowerRankClone), so the program is read and partitioned
// once for every rank; nullptr when a reshard was refused (diagnosed).
// `ranks`: how many are lowered; the first rank lowered (`first`) refuses
// them all where its work times theirs exceeds schedule/lowered_ranks.h's bound.
std::unique_ptr<Program> lowerClone(const Program& dist, int64_t rank, const LowerCommandOptions& options,
                                    DiagnosticEngine& diagnostics, size_t ranks, bool first) {
  LoweredRank lowered = lowerRankClone(dist, lowerOptions(rank, options), diagnostics);
  const LowerSummary& summary = lowered.summary;
  if (!summary.ok) return nullptr;
  if (first)
    if (auto refusal = loweringWorkRefusal("lower --all-ranks lowers", dist, ranks, summary.groupMembers)) {
      diagnostics.error(*refusal);
      return nullptr;
    }
  return std::move(lowered.program);
}

// Each rank lowers a clone of the dist program and is written and dropped
// before the next is made: one rank's program is held at a time (at 100k ops
// the varied bench program on its 64 ranks held 3.8 GB when standard output
// waited for all of them). An output file is published only when every rank
// was lowered (temp file + rename); standard output, a fifo or a device has
// the ranks before a failing one already, as a compiler's output has the
// functions before an error. One rank (--rank) is lowered in place: nothing
// else needs the dist program, so it is not cloned.
int writeRanks(Program& dist, const std::vector<int64_t>& ranks, const LowerCommandOptions& options,
               DiagnosticEngine& diagnostics) {
  if (!options.allRanks) {
    const LowerSummary summary = lowerProgram(dist, lowerOptions(ranks.front(), options), diagnostics);
    return summary.ok ? writeProgram(dist, options.output, diagnostics) : kExitBadInput;
  }
  if (std::filesystem::is_directory(options.output)) {
    for (const int64_t rank : ranks) {
      const bool first = rank == ranks.front();
      std::unique_ptr<Program> lowered = lowerClone(dist, rank, options, diagnostics, ranks.size(), first);
      if (!lowered) return kExitBadInput;
      const std::string path = (std::filesystem::path(options.output) / fmt::format("rank{}.ir", rank)).string();
      if (int status = writeProgram(*lowered, path, diagnostics); status != kExitOk) return status;
      dropLoweredRank(lowered);
    }
    return kExitOk;
  }
  return writeOutputUnlessFailed(options.output, diagnostics, [&](OutputSink& out) -> int {
    for (const int64_t rank : ranks) {
      const bool first = rank == ranks.front();
      std::unique_ptr<Program> lowered = lowerClone(dist, rank, options, diagnostics, ranks.size(), first);
      if (!lowered) return kExitBadInput;
      out.write(logLabel(rank, options.stage, lowered->isFragment()));
      if (!printProgram(*lowered, out)) return kExitUsage;
      dropLoweredRank(lowered);
    }
    return out.failed() ? kExitUsage : kExitOk;
  });
}

// --rank's rank, or every rank of the program (its op meshes' ids, which the
// partition pass does not change).
int lowerInput(const InputProgram& input, const LowerCommandOptions& options, DiagnosticEngine& diagnostics) {
  LoadedProgram loaded = loadProgram(input, diagnostics);
  if (!loaded.program) return loaded.failure;
  const std::vector<int64_t> ranks = options.rank ? std::vector<int64_t>{*options.rank} : programRanks(*loaded.program);
  if (ranks.empty()) {
    checkLowerable(*loaded.program, diagnostics);
    return kExitBadInput;
  }
  if (!prepareDist(*loaded.program, options, diagnostics)) return kExitBadInput;
  return writeRanks(*loaded.program, ranks, options, diagnostics);
}

int runLower(const LowerCommandOptions& options, Reporter& reporter) {
  if (options.rank.has_value() == options.allRanks)
    throw Failure(FailureKind::Usage, "lower: give exactly one of --rank R and --all-ranks");
  DiagnosticEngine diagnostics = reporter.engine();
  const InputProgram input = InputProgram::chosen(readInput(options.input, options.fragment), options.program);  // keeps the source
  const int status = lowerInput(input, options, diagnostics);
  reporter.report(diagnostics);
  return status;
}

SubcommandRunner defineLower(CLI::App& command, ReportingOptions& reporting) {
  auto options = std::make_shared<LowerCommandOptions>();
  addInputOutput(command, options->input, options->output);
  addFragmentFlag(command, options->fragment);
  addProgramOption(command, options->program);
  command.add_option("--rank", options->rank, "Lower the program rank R runs")->check(integerIn(0, INT32_MAX));
  command.add_flag("--all-ranks", options->allRanks,
                   "Lower every rank's program: with -o DIR (an existing directory) to DIR/rank<R>.ir, else to one "
                   "log whose labels name the ranks");
  addChoiceOption(command, "--stage", options->stage, stageChoices(),
                  "Where to stop: after reshard_op_pass (dist types), after remove_other_rank_op_pass, or the "
                  "dense program (local builtin.tensor types, no op_dist_attr)");
  addChoiceOption(command, "--lowering", options->lowering, loweringChoices(), kLoweringHelp);
  addChoiceOption(command, "--paddle", options->release, paddleReleaseChoices(), kPaddleReleaseHelp);
  command.add_flag("--apply", options->apply, "Run Paddle's mix2dist pass (folding dist_op.shard_tensor) and the partition pass first, and lower the reshards it inserts");
  addPartitionFlags(command, options->pass);
  addJobsOption(command);
  addReportingFlags(command, reporting);
  command.footer(fmt::format("Exit status: 0 lowered, 1 bad input or a reshard Paddle refuses, {}.", kUsageExit));
  return [options](Reporter& reporter) { return runLower(*options, reporter); };
}

}  // namespace

const SubcommandSpec kLowerSubcommand{"lower",
                                      "The program each rank really runs: reshards lowered into Paddle's "
                                      "communication ops, other ranks' ops pruned, local dense types",
                                      defineLower};

}  // namespace reshardctl
