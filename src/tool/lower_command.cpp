// `reshardctl lower`: read (→ partition pass with --apply) → for each rank
// asked, lower the program as Paddle does for that rank (lower/lower_program.h)
// → one program, one file per rank in a directory, or a log of all ranks.
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "lower/lower_program.h"
#include "passes/partition_pass.h"
#include "passes/pass_runner.h"
#include "support/failure.h"
#include "syntax/printer.h"
#include "tool/cli.h"
#include "tool/cli_support.h"
#include "tool/input_files.h"
#include "tool/program_output.h"
#include "tool/reporting.h"

namespace reshardctl {

namespace {

enum class Lowering { Paddle };

struct LowerCommandOptions {
  std::string input = "-";
  std::string output = "-";
  std::string program;
  bool apply = false;
  PartitionOptions pass;
  std::optional<int64_t> rank;
  bool allRanks = false;
  LowerStage stage = LowerStage::Dense;
  Lowering lowering = Lowering::Paddle;
};

const Choices<LowerStage>& stageChoices() {
  static const Choices<LowerStage> choices = {
      {"reshard", LowerStage::Reshard}, {"pruned", LowerStage::Pruned}, {"dense", LowerStage::Dense}};
  return choices;
}

// The label of a rank's program in a log: the banner Paddle prints after the
// pass (dist_to_dense_pass.cc with FLAGS_print_ir), naming the rank.
std::string logLabel(int64_t rank, LowerStage stage) {
  const char* pass = stage == LowerStage::Dense    ? "DistToDense Pass"
                     : stage == LowerStage::Pruned ? "remove_other_rank_op_pass"
                                                   : "reshard_op_pass";
  return fmt::format("rank {}: IR after {} = ", rank, pass);
}

struct RankProgram {
  std::unique_ptr<Program> program;
  int status = kExitOk;
};

RankProgram lowerRank(const InputProgram& input, int64_t rank, const LowerCommandOptions& options,
                      DiagnosticEngine& diagnostics) {
  LoadedProgram loaded = loadProgram(input, diagnostics);
  if (!loaded.program) return {nullptr, loaded.failure};
  Program& program = *loaded.program;
  if (options.apply && !runPass("partition", program, [&](Program& p) {
        return applyPartitionPass(p, diagnostics, options.pass);
      }).ok)
    return {nullptr, kExitBadInput};
  if (!checkLowerable(program, diagnostics)) return {nullptr, kExitBadInput};
  const std::vector<int64_t> ranks = programRanks(program);
  if (std::find(ranks.begin(), ranks.end(), rank) == ranks.end())
    throw Failure(FailureKind::Usage, fmt::format("--rank {}: the rank is in no mesh of the program (its ranks: {})",
                                                  rank, fmt::join(ranks, ", ")));
  const LowerSummary summary = lowerProgram(program, LowerOptions{rank, options.stage}, diagnostics);
  if (!summary.ok) return {nullptr, kExitBadInput};
  return {std::move(loaded.program), kExitOk};
}

// The ranks to lower: --rank's, or every rank of the program.
std::vector<int64_t> ranksToLower(const InputProgram& input, const LowerCommandOptions& options,
                                  DiagnosticEngine& diagnostics, int& status) {
  if (options.rank) return {*options.rank};
  LoadedProgram loaded = loadProgram(input, diagnostics);
  if (!loaded.program) {
    status = loaded.failure;
    return {};
  }
  return programRanks(*loaded.program);
}

int writeRanks(const InputProgram& input, const std::vector<int64_t>& ranks, const LowerCommandOptions& options,
               DiagnosticEngine& diagnostics) {
  const bool toDirectory = options.allRanks && std::filesystem::is_directory(options.output);
  std::string log;
  for (int64_t rank : ranks) {
    RankProgram lowered = lowerRank(input, rank, options, diagnostics);
    if (!lowered.program) return lowered.status;
    if (toDirectory) {
      const std::string path = (std::filesystem::path(options.output) / fmt::format("rank{}.ir", rank)).string();
      if (int status = writeProgram(*lowered.program, path, diagnostics); status != kExitOk) return status;
    } else if (options.allRanks) {
      log += logLabel(rank, options.stage) + printProgramToString(*lowered.program);
    } else {
      return writeProgram(*lowered.program, options.output, diagnostics);
    }
  }
  return toDirectory ? kExitOk : writeTextOutput(log, options.output, diagnostics);
}

int runLower(const LowerCommandOptions& options, Reporter& reporter) {
  if (options.rank.has_value() == options.allRanks)
    throw Failure(FailureKind::Usage, "lower: give exactly one of --rank R and --all-ranks");
  DiagnosticEngine diagnostics = reporter.engine();
  const InputProgram input = InputProgram::chosen(readInput(options.input), options.program);
  int status = kExitOk;
  const std::vector<int64_t> ranks = ranksToLower(input, options, diagnostics, status);
  if (status == kExitOk) status = writeRanks(input, ranks, options, diagnostics);
  reporter.report(diagnostics);
  return status;
}

SubcommandRunner defineLower(CLI::App& command, ReportingOptions& reporting) {
  auto options = std::make_shared<LowerCommandOptions>();
  addInputOutput(command, options->input, options->output);
  addProgramOption(command, options->program);
  command.add_option("--rank", options->rank, "Lower the program rank R runs")->check(integerIn(0, INT32_MAX));
  command.add_flag("--all-ranks", options->allRanks,
                   "Lower every rank's program: with -o DIR (an existing directory) to DIR/rank<R>.ir, else to one "
                   "log whose labels name the ranks");
  addChoiceOption(command, "--stage", options->stage, stageChoices(),
                  "Where to stop: after reshard_op_pass (dist types), after remove_other_rank_op_pass, or the "
                  "dense program (local builtin.tensor types, no op_dist_attr)");
  addChoiceOption(command, "--lowering", options->lowering, Choices<Lowering>{{"paddle", Lowering::Paddle}},
                  "Which ops a reshard becomes: Paddle's own reshard functions");
  command.add_flag("--apply", options->apply, "Run the partition pass first and lower the reshards it inserts");
  addPartitionFlags(command, options->pass);
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
