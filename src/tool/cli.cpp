#include "tool/cli.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <new>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "support/output_sink.h"
#include "tool/cli_docs.h"
#include "tool/cli_support.h"
#include "tool/commands.h"
#include "tool/program_io.h"
#include "tool/reporting.h"

namespace reshardctl {

namespace {

// What is said before a Reporter exists (usage errors): straight to standard error.
void writeError(const std::string& text) {
  standardError() += text;
  standardError().flush();
}

// CLI11 writes help and version text to streams: they go out through the sinks.
int exitThroughSinks(const CLI::App& app, const CLI::Error& e) {
  std::ostringstream out, err;
  const int code = app.exit(e, out, err);
  standardOutput() += out.str();
  standardOutput().flush();
  writeError(err.str());
  return code;
}

constexpr const char* kUsageExit = "2 bad usage or an I/O error";
constexpr const char* kSeveralInputs = "With several inputs, the exit status is the worst of them.";

void addOutput(CLI::App& command, std::string& output) {
  command.add_option("-o,--output", output, "Where to write ('-' = standard output)")->default_str("-");
}

void addInputOutput(CLI::App& command, std::string& input, std::string& output) {
  command.add_option("input", input, "Program dump to read ('-' = standard input)")->default_str("-");
  addOutput(command, output);
}

// `--program N|TEXT`, on every command that reads one program: which program
// of a file holding several (a log) to read (program_io.h).
constexpr const char* kProgramHelp =
    "Which program of a file holding several (a log; see `reshardctl list`): its number, or text "
    "its label contains (the first such program)";

// On commands that take several inputs (input_files.h): without --program,
// several inputs or -r take each program of a log in turn.
void addProgramOption(CLI::App& command, InputSelection& inputs) {
  command.add_option("--program", inputs.program,
                     std::string(kProgramHelp) + "; without it, several inputs or -r take each program of a "
                                                 "log in turn (FILE#N)");
}

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

// What the cost model accepts: any real link, nothing absurd (a typo of a
// few digits should not silently plan for a 1e300 GB/s network).
constexpr double kMaxBandwidthGBs = 1e6;  // 1 PB/s
constexpr double kMaxLatencyUs = 1e9;     // 1000 s

// The cost-model flags `plan` and `apply --stats` share; the per-mesh-dim
// lists are applied after parsing (finishCostModel). Each list flag takes
// exactly one argument, split at commas, so `--bandwidth 370,25 FILE` leaves
// FILE to be the input.
struct CostFlags {
  std::vector<double> bandwidths;
  std::vector<double> latencies;
};

void addCostModelFlags(CLI::App& command, CostModel& costs, CostFlags& flags) {
  const CostModel defaults;
  const CLI::Validator bandwidth = numberIn(0, kMaxBandwidthGBs, true, "GB/s");
  const CLI::Validator latency = numberIn(0, kMaxLatencyUs, false, "us");
  command.add_option("--bandwidth", flags.bandwidths,
                     "Bus bandwidth per mesh dim in GB/s, comma-separated; the last applies to higher dims")
      ->allow_extra_args(false)  // one argument per flag; commas split it
      ->delimiter(',')
      ->check(bandwidth)
      ->default_str(fmt::format("{:g}", defaults.link.bandwidthGBs));
  command.add_option("--latency", flags.latencies,
                     "Latency per ring hop per mesh dim in us, comma-separated; the last applies to higher dims")
      ->allow_extra_args(false)  // one argument per flag; commas split it
      ->delimiter(',')
      ->check(latency)
      ->default_str(fmt::format("{:g}", defaults.link.latencyUs));
  command.add_option("--cross-bandwidth", costs.crossMesh.bandwidthGBs,
                     "Bandwidth of moves between meshes in GB/s")
      ->check(bandwidth)
      ->capture_default_str();
  command.add_option("--cross-latency", costs.crossMesh.latencyUs, "Latency of moves between meshes in us")
      ->check(latency)
      ->capture_default_str();
  command.add_option("--launch-latency", costs.launchUs, "Fixed cost of every collective in us")
      ->check(latency)
      ->capture_default_str();
}

void finishCostModel(CostModel& costs, const CostFlags& flags) {
  costs.setMeshDimLinks(flags.bandwidths, flags.latencies);
}

// `print`'s views (src/view/): the brief listing and its attributes, the
// neighbourhood cut, the page's comparison and cap, and plan's cost flags.
void addViewFlags(CLI::App& command, PrintOptions& print, CostFlags& costs) {
  command.add_flag("--brief", print.brief, "One short line per op in placement notation (= --emit=brief)");
  command.add_option("--show-attr", print.shownAttributes,
                     "Views: show this attribute after the types (repeatable)")
      ->allow_extra_args(false);
  command.add_option("--focus", print.focus,
                     "Views: show only the ops around this value (e.g. %9), see --depth");
  command.add_option("--depth", print.depth, "With --focus: how many dataflow steps around the value")
      ->check(integerIn(0, std::numeric_limits<int>::max()))
      ->capture_default_str();
  command.add_option("--compare", print.compare,
                     "html: the program before apply, shown side by side with the input");
  command.add_option("--max-ops", print.maxOps, "html: the most op rows the page inlines")
      ->check(integerIn(1, std::numeric_limits<int64_t>::max()))
      ->capture_default_str();
  addCostModelFlags(command, print.costs, costs);
}

// Everything the command line fills in.
struct CliState {
  ReportingOptions reporting;
  std::string generate;  // hidden: --generate=man|bash|zsh (cli_docs.h)
  ApplyOptions apply;
  CostFlags applyCosts;
  PrintOptions print;
  CostFlags printCosts;
  DiffCommandOptions diff;
  PlanOptions plan;
  CostFlags planCosts;
  VerifyOptions verify;
  RunOptions run;
  CostFlags runCosts;
  ListOptions list;
  ValidateCommandOptions validate;
};

CLI::App* defineApply(CLI::App& app, CliState& s) {
  CLI::App* command =
      app.add_subcommand("apply", "Run the partition pass: insert dist_op.reshard where an "
                                  "operand's layout differs from what its op needs");
  addInputFlags(*command, s.apply.inputs);
  addOutput(*command, s.apply.output);
  addProgramOption(*command, s.apply.inputs);
  command->add_flag("--stats", s.apply.stats,
                    "Report on stderr how many reshards were inserted (with --check: would be) and their "
                    "estimated cost");
  addCostModelFlags(*command, s.apply.costs, s.applyCosts);
  addPartitionFlags(*command, s.apply.pass);
  CLI::Option* check =
      command->add_flag("--check", s.apply.check,
                        "Write nothing; list the reshards the pass would insert (as warnings) and exit 1 if any")
          ->excludes("--output");
  CLI::Option* inPlace = command->add_flag("-i,--in-place", s.apply.inPlace,
                                           "Write the result back to each input file (in a log, over that "
                                           "program's lines only)")
                             ->excludes("--output")
                             ->excludes(check);
  command->add_flag("--diff", s.apply.diff,
                    "Write nothing; print a unified diff from each input to its result (patch -p0 applies it)")
      ->excludes("--output")
      ->excludes(inPlace);
  command->add_flag("--json", s.apply.json, "With --check: the findings as JSON on stdout (schema/check.schema.json)")
      ->needs(check);
  addReportingFlags(*command, s.reporting);
  command->footer(fmt::format("Several inputs (or -r) need --check, --diff or --in-place. {}\nExit status: 0 done "
                              "(--check: nothing to insert), 1 bad input or (--check) reshards would be inserted, {}.",
                              kSeveralInputs, kUsageExit));
  return command;
}

CLI::App* definePrint(CLI::App& app, CliState& s) {
  CLI::App* command = app.add_subcommand(
      "print", "Parse, verify and print the program back (renumbering it); several inputs one after another");
  addInputFlags(*command, s.print.inputs);
  addOutput(*command, s.print.output);
  addProgramOption(*command, s.print.inputs);
  CLI::Option* emit = command->add_option("--emit", s.print.emit,
                                          "Output format: ir (the dump), json, or a view: brief (one line per "
                                          "op), dot (Graphviz dataflow), html (one self-contained page)")
                          ->check(CLI::IsMember({"ir", "json", "brief", "dot", "html"}))
                          ->default_str("ir");
  command->add_flag_callback("--json", [&s] { s.print.emit = "json"; },
                             "The same as --emit=json (schema/program.schema.json)")
      ->excludes(emit);
  addViewFlags(*command, s.print, s.printCosts);
  addReportingFlags(*command, s.reporting);
  command->footer(fmt::format("{}\nExit status: 0 printed, 1 bad input, {}.", kSeveralInputs, kUsageExit));
  return command;
}

CLI::App* defineDiff(CLI::App& app, CliState& s) {
  CLI::App* command = app.add_subcommand(
      "diff", "Compare two programs by structure (renumbering is no difference); "
              "exit 0 equal, 1 different, 2 trouble");
  command->add_option("before", s.diff.before, "The old program")->required();
  command->add_option("after", s.diff.after, "The new program (leave it out to compare two programs of "
                                             "one file: --program A --program B FILE)");
  command->add_option("--program", s.diff.programs,
                      "Which program of a file holding several: given once, for both files; twice, the "
                      "first for the old program and the second for the new")
      ->allow_extra_args(false);
  command->add_option("--ignore-attr", s.diff.ignoredAttributes,
                      "Leave this attribute out of the comparison (repeatable)")
      ->allow_extra_args(false);  // one name per flag, so inputs after it stay positional
  CLI::Option* stat = command->add_flag("--stat", s.diff.stat, "Print only a summary line");
  CLI::Option* unified =
      command->add_flag("-u,--unified", s.diff.unified,
                        "When they differ: the summary line, then a unified diff of the two files' texts")
          ->excludes(stat);
  command->add_option_function<size_t>(
             "-U,--context", [&s](size_t lines) { s.diff.context = lines, s.diff.unified = true; },
             "Lines of context in the unified diff (implies -u)")
      ->check(unsignedInteger())
      ->default_str("3")
      ->excludes(stat);
  command->add_flag("--json", s.diff.json, "The changes as JSON (schema/diff.schema.json)")
      ->excludes(stat)
      ->excludes(unified);
  addReportingFlags(*command, s.reporting);
  command->footer("Exit status: 0 equal, 1 different, 2 trouble (bad input, unreadable file, bad usage), as diff(1).");
  return command;
}

CLI::App* definePlan(CLI::App& app, CliState& s) {
  CLI::App* command = app.add_subcommand(
      "plan", "Plan every dist_op.reshard: the collectives on which groups of ranks, the bytes "
              "they move and the estimated time (min-cost search under an alpha-beta model)");
  addInputOutput(*command, s.plan.input, s.plan.output);
  addProgramOption(*command, s.plan.program);
  command->add_flag("--json", s.plan.json, "Write JSON instead of a table (schema/plan.schema.json)");
  command->add_flag("--apply", s.plan.apply,
                    "Run the partition pass first and plan the reshards it inserts (lines are then those of "
                    "the program apply prints)");
  addPartitionFlags(*command, s.plan.pass);
  addCostModelFlags(*command, s.plan.costs, s.planCosts);
  addReportingFlags(*command, s.reporting);
  command->footer(fmt::format("Exit status: 0 planned, 1 bad input or a reshard without a plan, {}.", kUsageExit));
  return command;
}

CLI::App* defineVerify(CLI::App& app, CliState& s) {
  CLI::App* command = app.add_subcommand(
      "verify", "Check programs: the load-time errors plus warnings (uneven shards, extra "
                "entries, dense operands of dist ops, meshes known only by shape)");
  addInputFlags(*command, s.verify.inputs);
  addProgramOption(*command, s.verify.inputs);
  addWarningFlags(*command, s.reporting);
  command->add_flag("--quiet", s.verify.quiet, "Do not print warnings");
  command->add_flag("--json", s.verify.json, "A report on stdout: every input's diagnostics (schema/verify.schema.json)");
  addReportingFlags(*command, s.reporting);
  command->footer(fmt::format("{}\nExit status: 0 no errors, 1 errors (a warning is one under -Werror), {}.",
                              kSeveralInputs, kUsageExit));
  return command;
}

CLI::App* defineRun(CLI::App& app, CliState& s) {
  CLI::App* command = app.add_subcommand(
      "run", "Execute every dist_op.reshard on real data (CPU reference ranks, or GPUs through "
             "NCCL) and check that every rank ends with exactly its piece");
  RunOptions& run = s.run;
  addInputOutput(*command, run.input, run.output);
  addProgramOption(*command, run.program);
  command->add_option("--backend", run.backend, "Where the ranks run")
      ->check(CLI::IsMember({"cpu", "nccl"}))
      ->capture_default_str();
  command->add_option("--seed", run.seed, "Seed of the random test tensors")
      ->check(unsignedInteger())
      ->capture_default_str();
  // A larger factor makes every tensor too large for the host reference (at
  // most 2^27 elements); more iterations than kMaxRunIterations is a typo.
  command->add_option("--scale", run.scale, "Multiply every value's largest dim by this")
      ->check(integerIn(1, kMaxRunScale))
      ->capture_default_str();
  command->add_option("--iters", run.iterations, "Runs per reshard; with more than one, the first "
                                                 "warms up and the time is the mean of the rest")
      ->check(integerIn(1, kMaxRunIterations))
      ->capture_default_str();
  command->add_flag("--apply", run.apply, "Run the partition pass first and run every reshard after it");
  command->add_option("--launcher", run.launcher,
                      "With --backend nccl: auto = one process per rank when mpirun started more than one "
                      "process; mpi = always that mode (also for one process); none = one process drives "
                      "every GPU of the node")
      ->check(CLI::IsMember({"auto", "mpi", "none"}))
      ->capture_default_str();
  command->add_flag("--json", run.json, "Write the report as JSON (schema/run.schema.json)");
  addPartitionFlags(*command, run.pass);
  addCostModelFlags(*command, run.costs, s.runCosts);
  // For tests of `run` itself: break one step on purpose (reshard_run.h).
  command->add_option("--inject-fault", run.fault)->group("");
  addReportingFlags(*command, s.reporting);
  command->footer(fmt::format("Exit status: 0 every reshard passed, 1 bad input or a failing reshard, {}, or the "
                              "backend is unavailable or failed (no GPU, NCCL error, timeout).",
                              kUsageExit));
  return command;
}

CLI::App* defineList(CLI::App& app, CliState& s) {
  CLI::App* command = app.add_subcommand(
      "list", "List the programs each file holds (a training log, a dump of one program per pass): number, "
              "lines, op count, distributed or not, the pass and label that name it");
  addInputFlags(*command, s.list.inputs, "Files to read: logs or dumps ('-' = standard input, the default); with -r, "
                                        "directories too");
  addOutput(*command, s.list.output);
  command->add_flag("--json", s.list.json, "Write JSON instead of a table (schema/list.schema.json)");
  addReportingFlags(*command, s.reporting);
  command->footer(fmt::format("{}\nExit status: 0 listed, 1 no program found, {}.", kSeveralInputs, kUsageExit));
  return command;
}

CLI::App* defineValidate(CLI::App& app, CliState& s) {
  ValidateCommandOptions& validate = s.validate;
  CLI::App* command = app.add_subcommand(
      "validate", "Run the whole program serially and on every rank (CPU reference kernels; reshards on "
                  "the CPU or NCCL) and report the first op whose distributed result differs from the "
                  "serial program's");
  addInputFlags(*command, validate.inputs);
  addOutput(*command, validate.output);
  addProgramOption(*command, validate.inputs);
  command->add_flag("--apply", validate.apply, "Run the partition pass first and validate its output");
  addPartitionFlags(*command, validate.pass);
  command->add_option("--backend", validate.backend, "Where the reshards run")
      ->check(CLI::IsMember({"cpu", "nccl"}))
      ->capture_default_str();
  command->add_option("--seed", validate.seed, "Seed of the program's input values")
      ->check(unsignedInteger())
      ->capture_default_str();
  command->add_option("--dynamic-dim", validate.dynamicDim, "Size given to -1 dims of input shapes")
      ->check(integerIn(1, std::numeric_limits<int64_t>::max()))
      ->capture_default_str();
  command->add_option("--rtol", validate.rtol, "Relative tolerance (default: by element type)")
      ->check(nonNegativeNumber());
  command->add_option("--atol", validate.atol, "Absolute tolerance (default: by element type)")
      ->check(nonNegativeNumber());
  command->add_flag("--all", validate.all, "Go on after the first divergence and report every one");
  command->add_flag("--json", validate.json, "Write the report as JSON (schema/validate.schema.json)");
  command->add_flag("--strict", validate.strict, "Exit 2 when some op cannot be simulated");
  addReportingFlags(*command, s.reporting);
  command->footer(fmt::format("{}\nExit status: 0 every op checked matches the serial program, 1 bad input or a "
                              "divergence, {}, or (--strict) some op cannot be simulated.",
                              kSeveralInputs, kUsageExit));
  return command;
}

// Parses argv into `app`; -1 when the command should run, else the exit code.
int parse(CLI::App& app, int argc, char** argv) {
  const std::string unknown = unknownSubcommand(app, argc, argv);
  if (!unknown.empty()) {
    writeError(unknown + "\nRun 'reshardctl --help' for the subcommands.\n");
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return exitThroughSinks(app, e);
  } catch (const CLI::CallForAllHelp& e) {
    return exitThroughSinks(app, e);
  } catch (const CLI::CallForVersion& e) {
    return exitThroughSinks(app, e);
  } catch (const CLI::ParseError& e) {
    writeError(explainParseError(app, e) + "\nRun with --help for the flags.\n");
    return kExitUsage;
  }
  return -1;
}

}  // namespace

int runCli(int argc, char** argv) {
  CLI::App app{"reshardctl: read Paddle PIR dumps of distributed programs, insert the reshards "
               "the partition pass needs, print them back exactly as Paddle does."};
  app.set_version_flag("-V,--version", versionText());
  app.require_subcommand(0, 1);
  app.footer(
      "Examples:\n"
      "  reshardctl apply samples/seed_mlp_before.ir -o after.ir\n"
      "  reshardctl apply --check -r dumps/\n"
      "  reshardctl apply --diff samples/seed_mlp_before.ir | patch -p0\n"
      "  reshardctl print dump.ir | diff dump.ir -\n"
      "  reshardctl verify -Werror --error-format=github dumps/*.ir\n"
      "  reshardctl plan --apply samples/seed_mlp_before.ir --json\n"
      "  reshardctl run --apply samples/tp_mlp_2x2_before.ir\n"
      "  reshardctl diff -u before.ir after.ir --ignore-attr op_role\n"
      "  reshardctl print --brief samples/seed_mlp_after.ir\n"
      "  reshardctl print --emit=dot dump.ir | dot -Tsvg -o dump.svg\n"
      "  reshardctl print --emit=html after.ir --compare before.ir -o page.html\n"
      "  reshardctl list train.log\n"
      "  reshardctl apply --program build_cinn_pass train.log\n"
      "  reshardctl validate samples/seed_mlp_before.ir\n"
      "Exit status: 0 success; 1 bad input (diagnostics on stderr), a check that found something "
      "(apply --check, verify -Werror, diff: the programs differ) or a failing reshard (run); 2 bad usage, "
      "an I/O error or an unavailable backend. Each subcommand's --help says which.");
  CliState s;
  app.add_option("--generate", s.generate, "Write the man page or a shell completion script")
      ->check(CLI::IsMember({"man", "bash", "zsh"}))
      ->group("");
  CLI::App* apply = defineApply(app, s);
  CLI::App* print = definePrint(app, s);
  CLI::App* diff = defineDiff(app, s);
  CLI::App* plan = definePlan(app, s);
  CLI::App* verify = defineVerify(app, s);
  CLI::App* run = defineRun(app, s);
  CLI::App* list = defineList(app, s);
  CLI::App* validate = defineValidate(app, s);

  if (const int exit = parse(app, argc, argv); exit >= 0) return exit;
  if (!s.generate.empty()) {
    if (writeCliDocument(app, s.generate, standardOutput())) return kExitOk;
    writeError("reshardctl: error: " + standardOutput().errorMessage() + "\n");
    return kExitUsage;
  }
  if (app.get_subcommands().empty()) {
    writeError("reshardctl: error: a subcommand is required: apply, print, verify, diff, plan, run, list "
               "or validate\n"
               "Run 'reshardctl --help' for more.\n");
    return kExitUsage;
  }
  std::string error;
  std::unique_ptr<Reporter> reporter = Reporter::create(s.reporting, &error);
  if (!reporter) {
    writeError("reshardctl: error: " + error + "\n");
    return kExitUsage;
  }
  finishCostModel(s.apply.costs, s.applyCosts);
  finishCostModel(s.plan.costs, s.planCosts);
  finishCostModel(s.run.costs, s.runCosts);
  finishCostModel(s.print.costs, s.printCosts);
  int status = kExitUsage;
  // The one place a command's running out of memory (or any exception that
  // escaped it) is reported: unwinding has removed any temporary output, so
  // an earlier output file is as it was.
  try {
    if (apply->parsed()) status = runApply(s.apply, *reporter);
    else if (plan->parsed()) status = runPlan(s.plan, *reporter);
    else if (print->parsed()) status = runPrint(s.print, *reporter);
    else if (verify->parsed()) status = runVerify(s.verify, *reporter);
    else if (run->parsed()) status = runRun(s.run, *reporter);
    else if (diff->parsed()) status = runDiff(s.diff, *reporter);
    else if (list->parsed()) status = runList(s.list, *reporter);
    else if (validate->parsed()) status = runValidate(s.validate, *reporter);
  } catch (const std::bad_alloc&) {
    reporter->toolError("out of memory: this run needs more memory than the system (or ulimit -v) allows");
    status = kExitUsage;
  } catch (const std::exception& e) {
    reporter->toolError(fmt::format("internal error: {}", e.what()));
    status = kExitUsage;
  }
  // A write to standard output that no command checks (status lines,
  // --check's findings, verify --json): the sink kept why it failed.
  if (standardOutput().failed() && status != kExitUsage) {
    reporter->toolError(standardOutput().errorMessage());
    status = kExitUsage;
  }
  reporter->finish();
  return status;
}

}  // namespace reshardctl
