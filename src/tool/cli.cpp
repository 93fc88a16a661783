#include "tool/cli.h"

#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "tool/commands.h"
#include "tool/program_io.h"

namespace reshardctl {

namespace {

constexpr const char* kVersion = "reshardctl 0.1.0";

void addInputOutput(CLI::App& command, std::string& input, std::string& output,
                    const std::string& what = "Program dump to read") {
  command.add_option("input", input, what + " ('-' = standard input)")->default_str("-");
  command.add_option("-o,--output", output, "Where to write ('-' = standard output)")
      ->default_str("-");
}

// `--program N|TEXT`, on every command that reads one program: which program
// of a file holding several (a log) to read (program_io.h).
constexpr const char* kProgramHelp =
    "Which program of a file holding several (a log; see `reshardctl list`): its number, or text "
    "its label contains (the first such program)";

void addProgramOption(CLI::App& command, std::string& selector) {
  command.add_option("--program", selector, kProgramHelp);
}

// The partition pass's switches, for `apply` and for `plan --apply`.
void addPartitionFlags(CLI::App& command, PartitionOptions& options) {
  command.add_flag("--split-cross-mesh", options.splitCrossMesh,
                   "A change of mesh and layout becomes two reshards: to the destination "
                   "mesh keeping the layout, then the layout change (decompose_reshard_pass)");
  command.add_flag("--fold", options.fold,
                   "Reshard a reshard's result from that reshard's input; remove reshards "
                   "left without uses");
  command.add_flag("--dedupe", options.dedupe,
                   "One reshard per (value, destination layout) instead of one per use");
  command.add_flag("--reshard-results", options.reshardResults,
                   "A result whose type disagrees with its op_dist_attr entry takes the "
                   "entry's layout; a reshard back to the old layout follows the op");
}

// The cost-model flags `plan` and `apply --stats` share; the per-mesh-dim
// lists are applied after parsing (finishCostModel).
struct CostFlags {
  std::vector<double> bandwidths;
  std::vector<double> latencies;
};

void addCostModelFlags(CLI::App& command, CostModel& costs, CostFlags& flags) {
  const CostModel defaults;
  command.add_option("--bandwidth", flags.bandwidths,
                     "Bus bandwidth per mesh dim in GB/s, comma-separated; the last applies to higher dims")
      ->delimiter(',')
      ->check(CLI::PositiveNumber)
      ->default_str(fmt::format("{:g}", defaults.link.bandwidthGBs));
  command.add_option("--latency", flags.latencies,
                     "Latency per ring hop per mesh dim in us, comma-separated; the last applies to higher dims")
      ->delimiter(',')
      ->check(CLI::NonNegativeNumber)
      ->default_str(fmt::format("{:g}", defaults.link.latencyUs));
  command.add_option("--cross-bandwidth", costs.crossMesh.bandwidthGBs,
                     "Bandwidth of moves between meshes in GB/s")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command.add_option("--cross-latency", costs.crossMesh.latencyUs, "Latency of moves between meshes in us")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command.add_option("--launch-latency", costs.launchUs, "Fixed cost of every collective in us")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

void finishCostModel(CostModel& costs, const CostFlags& flags) {
  costs.setMeshDimLinks(flags.bandwidths, flags.latencies);
}

}  // namespace

int runCli(int argc, char** argv) {
  CLI::App app{"reshardctl: read Paddle PIR dumps of distributed programs, insert the reshards "
               "the partition pass needs, print them back exactly as Paddle does."};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  reshardctl apply samples/seed_mlp_before.ir -o after.ir\n"
      "  reshardctl print dump.ir | diff dump.ir -\n"
      "  reshardctl verify --werror dump.ir\n"
      "  reshardctl plan --apply samples/seed_mlp_before.ir --json\n"
      "  reshardctl run --apply samples/tp_mlp_2x2_before.ir\n"
      "  reshardctl diff before.ir after.ir --ignore-attr op_role\n"
      "  reshardctl list train.log\n"
      "  reshardctl apply --program build_cinn_pass train.log\n"
      "  reshardctl validate samples/seed_mlp_before.ir\n"
      "Exit codes: 0 success, 1 bad input (diagnostics on stderr), 2 bad usage or I/O error.");

  ApplyOptions apply;
  CLI::App* applyCommand =
      app.add_subcommand("apply", "Run the partition pass: insert dist_op.reshard where an "
                            "operand's layout differs from what its op needs");
  addInputOutput(*applyCommand, apply.input, apply.output);
  addProgramOption(*applyCommand, apply.program);
  applyCommand->add_flag("--stats", apply.stats,
                   "Report on stderr how many reshards were inserted and their estimated cost");
  CostFlags applyCosts;
  addCostModelFlags(*applyCommand, apply.costs, applyCosts);
  addPartitionFlags(*applyCommand, apply.pass);
  applyCommand->add_flag("--check", apply.check,
                         "Write nothing; list the reshards the pass would insert and exit 1 if any");
  applyCommand->add_flag("-i,--in-place", apply.inPlace,
                         "Write the result back to the input file (in a log, over that program's lines only)")
      ->excludes("--output");

  PrintOptions print;
  CLI::App* printCommand =
      app.add_subcommand("print", "Parse, verify and print the program back (renumbering it)");
  addInputOutput(*printCommand, print.input, print.output);
  addProgramOption(*printCommand, print.program);
  printCommand->add_option("--emit", print.emit, "Output format: ir (the dump) or json")
      ->check(CLI::IsMember({"ir", "json"}))
      ->default_str("ir");

  DiffCommandOptions diff;
  CLI::App* diffCommand = app.add_subcommand(
      "diff", "Compare two programs by structure (renumbering is no difference); "
              "exit 0 equal, 1 different, 2 trouble");
  diffCommand->add_option("before", diff.before, "The old program")->required();
  diffCommand->add_option("after", diff.after, "The new program (leave it out to compare two programs of "
                                               "one file: --program A --program B FILE)");
  diffCommand->add_option("--program", diff.programs,
                          "Which program of a file holding several: given once, for both files; twice, the "
                          "first for the old program and the second for the new")
      ->allow_extra_args(false);
  diffCommand->add_option("--ignore-attr", diff.ignoredAttributes,
                          "Leave this attribute out of the comparison (repeatable)")
      ->allow_extra_args(false);  // one name per flag, so inputs after it stay positional
  diffCommand->add_flag("--stat", diff.stat, "Print only a summary line");

  PlanOptions plan;
  CLI::App* planCommand = app.add_subcommand(
      "plan", "Plan every dist_op.reshard: the collectives on which groups of ranks, the bytes "
              "they move and the estimated time (min-cost search under an alpha-beta model)");
  addInputOutput(*planCommand, plan.input, plan.output);
  addProgramOption(*planCommand, plan.program);
  planCommand->add_flag("--json", plan.json, "Write JSON instead of a table");
  planCommand->add_flag("--apply", plan.apply, "Run the partition pass first and plan the reshards it inserts");
  addPartitionFlags(*planCommand, plan.pass);
  CostFlags planCosts;
  addCostModelFlags(*planCommand, plan.costs, planCosts);

  VerifyOptions verify;
  CLI::App* verifyCommand = app.add_subcommand(
      "verify", "Check a program: the load-time errors plus warnings (uneven shards, extra "
                "entries, dense operands of dist ops, meshes known only by shape)");
  verifyCommand->add_option("input", verify.input, "Program dump to read ('-' = standard input)")
      ->default_str("-");
  addProgramOption(*verifyCommand, verify.program);
  verifyCommand->add_flag("--werror", verify.werror, "Exit 1 when there are warnings");
  verifyCommand->add_flag("--quiet", verify.quiet, "Do not print warnings");

  RunOptions run;
  CLI::App* runCommand = app.add_subcommand(
      "run", "Execute every dist_op.reshard on real data (CPU reference ranks, or GPUs through "
             "NCCL) and check that every rank ends with exactly its piece");
  addInputOutput(*runCommand, run.input, run.output);
  addProgramOption(*runCommand, run.program);
  runCommand->add_option("--backend", run.backend, "Where the ranks run")
      ->check(CLI::IsMember({"cpu", "nccl"}))
      ->capture_default_str();
  runCommand->add_option("--seed", run.seed, "Seed of the random test tensors")->capture_default_str();
  runCommand->add_option("--scale", run.scale, "Multiply every value's largest dim by this")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  runCommand->add_option("--iters", run.iterations, "Runs per reshard; with more than one, the first "
                                                    "warms up and the time is the mean of the rest")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  runCommand->add_flag("--apply", run.apply, "Run the partition pass first and run every reshard after it");
  runCommand->add_option("--launcher", run.launcher,
                         "With --backend nccl: auto = one process per rank when mpirun started more than one "
                         "process; mpi = always that mode (also for one process); none = one process drives "
                         "every GPU of the node")
      ->check(CLI::IsMember({"auto", "mpi", "none"}))
      ->capture_default_str();
  addPartitionFlags(*runCommand, run.pass);
  CostFlags runCosts;
  addCostModelFlags(*runCommand, run.costs, runCosts);
  // For tests of `run` itself: break one step on purpose (reshard_run.h).
  runCommand->add_option("--inject-fault", run.fault)->group("");

  ListOptions list;
  CLI::App* listCommand = app.add_subcommand(
      "list", "List the programs a file holds (a training log, a dump of one program per pass): number, "
              "lines, op count, distributed or not, the pass and label that name it");
  addInputOutput(*listCommand, list.input, list.output, "File to read: a log, or a dump");
  listCommand->add_flag("--json", list.json, "Write JSON instead of a table");
  ValidateCommandOptions validate;
  CLI::App* validateCommand = app.add_subcommand(
      "validate", "Run the whole program serially and on every rank (CPU reference kernels; reshards on "
                  "the CPU or NCCL) and report the first op whose distributed result differs from the "
                  "serial program's");
  addInputOutput(*validateCommand, validate.input, validate.output);
  addProgramOption(*validateCommand, validate.program);
  validateCommand->add_flag("--apply", validate.apply, "Run the partition pass first and validate its output");
  addPartitionFlags(*validateCommand, validate.pass);
  validateCommand->add_option("--backend", validate.backend, "Where the reshards run")
      ->check(CLI::IsMember({"cpu", "nccl"}))
      ->capture_default_str();
  validateCommand->add_option("--seed", validate.seed, "Seed of the program's input values")->capture_default_str();
  validateCommand->add_option("--dynamic-dim", validate.dynamicDim, "Size given to -1 dims of input shapes")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  validateCommand->add_option("--rtol", validate.rtol, "Relative tolerance (default: by element type)")
      ->check(CLI::NonNegativeNumber);
  validateCommand->add_option("--atol", validate.atol, "Absolute tolerance (default: by element type)")
      ->check(CLI::NonNegativeNumber);
  validateCommand->add_flag("--all", validate.all, "Go on after the first divergence and report every one");
  validateCommand->add_flag("--json", validate.json, "Write the report as JSON");
  validateCommand->add_flag("--strict", validate.strict, "Exit 2 when some op cannot be simulated");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  finishCostModel(apply.costs, applyCosts);
  finishCostModel(plan.costs, planCosts);
  finishCostModel(run.costs, runCosts);
  if (applyCommand->parsed()) return runApply(apply);
  if (planCommand->parsed()) return runPlan(plan);
  if (printCommand->parsed()) return runPrint(print);
  if (verifyCommand->parsed()) return runVerify(verify);
  if (runCommand->parsed()) return runRun(run);
  if (diffCommand->parsed()) return runDiff(diff);
  if (listCommand->parsed()) return runList(list);
  if (validateCommand->parsed()) return runValidate(validate);
  return kExitUsage;
}

}  // namespace reshardctl
