// `reshardctl validate`: for each input, read (→ partition pass with --apply)
// → run the whole program serially and on every rank (interp/validation.h) →
// a diagnostic at each op whose distributed result is not the serial one, the
// ops that could not be simulated, and a summary (or all of it as one JSON
// document, schema/validate.schema.json).
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "exec/execution_backend.h"
#include "exec/multiprocess/multi_process.h"
#include "exec/multiprocess/process_group.h"
#include "interp/shrink/shrink.h"
#include "interp/validation.h"
#include "interp/validation_report.h"
#include "ir/clone/program_clone.h"
#include "lower/lower_program.h"
#include "lower/lowered_ops.h"
#include "passes/mix_to_dist.h"
#include "passes/partition_pass.h"
#include "report/diagnostic_formats.h"
#include "report/json_export.h"
#include "report/result_json.h"
#include "reshard/mesh_coords.h"
#include "schedule/lowered_ranks.h"
#include "schedule/lowered_run.h"
#include "schedule/rank_rendezvous.h"
#include "support/escape.h"
#include "support/failure.h"
#include "support/output_sink.h"
#include "support/text.h"
#include "syntax/printer.h"
#include "tool/cli.h"
#include "tool/cli_support.h"
#include "tool/input_files.h"
#include "tool/program_output.h"
#include "tool/reporting.h"

namespace reshardctl {

namespace {

// Exits 0 when every op checked matches the serial program, 1 at a divergence
// (or bad input), 2 on bad usage, or with --strict when some op is not simulated.
struct ValidateCommandOptions {
  InputSelection inputs;        // each validated in turn; with --program
  std::string output = "-";     // the summaries (or the JSON)
  bool apply = false;           // run the partition pass first
  PartitionOptions pass;        // the partition pass's switches
  BackendKind backend = BackendKind::Cpu;  // where the reshards run
  uint64_t seed = 1;
  int64_t dynamicDim = 4;       // the size of a -1 dim
  std::optional<double> rtol, atol;
  WorkBudget budget;            // --max-work, --max-memory
  bool all = false;             // go on after the first divergence
  bool json = false;            // schema/validate.schema.json
  bool strict = false;          // exit 2 when some op is not simulated
  std::string shrink = "auto";  // interp/shrink/shrink.h's ShrinkRequest, as written
  bool lowered = false;         // run every rank's lowered program (schedule/lowered_run.h)
  LoweringKind lowering = LoweringKind::Paddle;
  PaddleRelease release = PaddleRelease::V3_0;  // --paddle (with --lowered)
  CostModel costs;              // --lowering=plan: the planner's default model
};

// Names values as the input file does: numbered before the pass, which adds
// reshards; a value the pass made is named after the value it reshards.
class InputNames {
 public:
  explicit InputNames(const Program& program) : names_(program), known_(program.valueCount()) {}
  std::string operator()(const Value* value) const {
    if (value == nullptr) return "<<NULL VALUE>>";
    if (value->id < known_) return names_.name(value);
    const Operation* op = value->definingOp;
    if (op && op->numOperands() == 1) return fmt::format("the reshard of {}", (*this)(op->operandValue(0)));
    return "a value the pass inserted";
  }

 private:
  ValueNames names_;
  uint32_t known_;
};

std::unique_ptr<ExecutionBackend> makeBackend(const ValidateCommandOptions& options, const Program& program,
                                              std::string* error) {
  if (options.backend == BackendKind::Cpu) return makeCpuBackend();
  std::set<int64_t> ranks;
  walkOps(*program.body(), [&](const Operation* op) {
    if (op->distAttr())
      for (int64_t id : processIds(op->distAttr()->mesh)) ranks.insert(id);
  });
  return makeNcclBackend({ranks.begin(), ranks.end()}, error);
}

// The run's failure when the simulation does not fit in memory: how much
// the program asks (each process: the serial values whole, its share of the
// ranks' pieces) and what would make it fit.
std::string outOfMemoryMessage(const std::string& input, const Program& program, int64_t factor, int64_t dynamicDim,
                               int processes) {
  const ProgramCost cost = programCost(program, dynamicDim, ValidateOptions{}.maxLoopIterations);
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  return fmt::format("out of memory validating {}: its values hold {:.1f} GiB as doubles serially and {:.1f} GiB over "
                     "the ranks, {:.1f} GiB in {}{}; validate a smaller copy with --shrink={}, or share the ranks "
                     "over more processes (mpirun -np {})",
                     input, static_cast<double>(cost.serialBytes) / kGiB, static_cast<double>(cost.rankBytes) / kGiB,
                     static_cast<double>(cost.bytesPerProcess(static_cast<uint64_t>(processes))) / kGiB,
                     processes == 1 ? "this process" : fmt::format("each of {} processes", processes),
                     factor > 1 ? fmt::format(" after a shrink of 1/{}", factor) : "", std::max<int64_t>(factor * 4, 16),
                     2 * processes);
}

// RESHARDCTL_SHARE_STATS: what each process held of the ranks' pieces (its
// share of their memory) and received from the others, on standard error.
void reportShare(const ValidationOutcome& outcome) {
  for (size_t process = 0; process < outcome.pieceBytes.size() && process < outcome.receivedBytes.size(); ++process)
    standardError().write(fmt::format("reshardctl: process {} of {}: rank pieces {:.0f} bytes, received {:.0f} bytes\n",
                                       process, outcome.pieceBytes.size(), outcome.pieceBytes[process],
                                       outcome.receivedBytes[process]));
}

// Standard error as it was before a process other than 0 was silenced: what
// ends every process still says why.
int savedStderr = -1;

// Ends every process of the run with `failure` (said by this process): under
// mpirun a failure that one process meets alone must not leave the others
// waiting in a collective.
[[noreturn]] void endAllProcesses(ProcessGroup& processes, const Failure& failure) {
  if (savedStderr >= 0) dup2(savedStderr, STDERR_FILENO);
  const int code = static_cast<int>(exitCodeOf(failure.kind));
  processes.abort(failure.message, code);
  std::_Exit(code);  // abort does not return; GCC does not see it through the virtual call
}

// Where to report an op of a lowered program: an op the lowering made has no
// line of its own, so the op it was made for (its uses', or a send's operand's).
size_t loweredLocation(const Operation& op) {
  const size_t at = sourceLocation(op);
  if (at != 0 || op.numOperands() == 0 || !op.operandValue(0) || !op.operandValue(0)->definingOp) return at;
  return sourceLocation(*op.operandValue(0)->definingOp);
}

void reportDivergences(const ValidationOutcome& outcome, DiagnosticEngine& diagnostics, bool lowered) {
  for (const Divergence& d : outcome.divergences) {
    const size_t offset = !d.op ? 0 : lowered ? loweredLocation(*d.op) : d.op->location();
    Diagnostic& reported = offset != 0 ? diagnostics.error(offset, 1, d.message) : diagnostics.error(d.message);
    reported.code = kDivergenceCode;
  }
}

using Json = nlohmann::ordered_json;

Json divergenceJson(const Divergence& d, const SourceFile& source) {
  return {{"location", d.op ? locationJson(source, d.op->location()) : Json(nullptr)},
          {"op", d.op ? Json(std::string(d.op->name())) : Json(nullptr)},
          {"kind", d.kind},
          {"result", d.result ? Json(*d.result) : Json(nullptr)},
          {"value", d.value.empty() ? Json(nullptr) : Json(d.value)},
          {"ranks", d.ranks},
          {"max_abs_diff", d.maxAbsDiff},
          {"max_rel_err", d.maxRelErr},
          {"index", d.index},
          {"message", d.message}};
}

// One input's outcome in the document (schema/validate.schema.json).
Json outcomeJson(const ValidationOutcome& outcome, const LoadedProgram& loaded, const ShrinkOutcome& shrink) {
  Json notSimulated = Json::array();
  for (const NotSimulated& n : outcome.notSimulated)
    notSimulated.push_back({{"op", n.op}, {"count", n.count}, {"reason", n.reason.empty() ? Json(nullptr) : Json(n.reason)}});
  Json divergences = Json::array();
  for (const Divergence& d : outcome.divergences) divergences.push_back(divergenceJson(d, *loaded.source));
  Json json = {{"file", loaded.source->name()},
          {"program", programIndexJson(loaded.index)},
          {"status", outcome.divergences.empty() ? "matches" : "diverges"},
          {"ranks", outcome.ranks},
          {"ops", outcome.totalOps},
          {"matched", outcome.matchedOps},
          {"diverged", outcome.divergedOps},
          {"not_simulated_ops", outcome.notSimulatedOps},
          {"dependent_ops", outcome.dependentOps},
          {"not_run", outcome.unexecutedOps},
          {"stopped_early", outcome.stoppedEarly},
          {"not_simulated", std::move(notSimulated)},
          {"divergences", std::move(divergences)},
          {"summary", summaryLine(outcome)}};
  if (!shrink.line.empty()) json["shrink"] = {{"factor", shrink.factor}, {"line", "validated " + shrink.line}};
  return json;
}

// The lines of one input's text report: the ops not simulated, the summary.
std::vector<std::string> textLines(const ValidationOutcome& outcome, const ShrinkOutcome& shrink) {
  std::vector<std::string> lines;
  if (!shrink.line.empty()) lines.push_back("validated " + shrink.line);
  if (std::string line = notSimulatedLine(outcome); !line.empty()) lines.push_back(std::move(line));
  lines.push_back(summaryLine(outcome));
  return lines;
}

// What a run over the inputs gathers: the text report or the document, and
// the counts of its closing line.
struct ValidateRun {
  std::string text;
  Json files = Json::array();
  size_t matching = 0, diverging = 0, failed = 0;
};

class InputValidator {
 public:
  InputValidator(const ValidateCommandOptions& options, Reporter& reporter, ValidateRun& run,
                 ProcessGroup* processes)
      : options_(options), reporter_(reporter), run_(run), processes_(processes) {}

  InputOutcome operator()(const InputProgram& input) {
    DiagnosticEngine diagnostics = reporter_.engine();
    LoadedProgram loaded = loadProgram(input, diagnostics);  // outlives the report of its diagnostics
    std::optional<ValidationOutcome> outcome;
    ShrinkOutcome shrink;
    const int status = loaded.program ? validate(input, loaded, diagnostics, &outcome, &shrink) : loaded.failure;
    reporter_.report(diagnostics);  // the divergences first, then the summary
    if (!outcome) {
      ++run_.failed;
      if (input.oneOfSeveral) run_.text += terminalLine(input.name) + ": failed\n";
      return {status, ""};
    }
    ++(outcome->divergences.empty() ? run_.matching : run_.diverging);
    if (std::getenv("RESHARDCTL_SHARE_STATS") != nullptr) reportShare(*outcome);
    if (options_.json) run_.files.push_back(outcomeJson(*outcome, loaded, shrink));
    // File names and op names (not simulated: OP) shown as a terminal line each.
    for (const std::string& line : textLines(*outcome, shrink))
      run_.text += terminalLine((input.oneOfSeveral ? input.name + ": " : "") + line) + "\n";
    return {status, ""};
  }

 private:
  // Sets *outcome when the program could be run; returns the input's status.
  int validate(const InputProgram& input, LoadedProgram& loaded, DiagnosticEngine& diagnostics,
               std::optional<ValidationOutcome>* outcome, ShrinkOutcome* shrink) {
    const InputNames names(*loaded.program);
    if (options_.apply && !runMixToDistAndPartition(*loaded.program, diagnostics, options_.pass)) return kExitBadInput;
    WorkBudget budget = options_.budget;  // in each process
    budget.processes = static_cast<uint64_t>(processCount());
    // auto shrinks until the program fits validate's budget
    *shrink = shrinkProgram(*loaded.program, *parseShrinkRequest(options_.shrink), diagnostics,
                            {budget, options_.dynamicDim, ValidateOptions{}.maxLoopIterations});
    if (!shrink->ok) return kExitBadInput;
    std::string error;
    std::unique_ptr<ExecutionBackend> backend = makeBackend(options_, *loaded.program, &error);
    if (!backend) {
      setMessageAndListing(diagnostics.error(""), fmt::format("the {} backend is not available: {}",
                                                              choiceName(backendChoices(), options_.backend), error));
      return kExitUsage;
    }
    ValidateOptions validate;
    validate.seed = options_.seed;
    validate.dynamicDim = options_.dynamicDim;
    validate.budget = budget;
    validate.rtol = options_.rtol;
    validate.atol = options_.atol;
    validate.all = options_.all;
    validate.nameOf = [&names](const Value* value) { return names(value); };
    validate.processes = processes_;
    LoweredRanks lowered(reporter_);
    if (options_.lowered)
      if (int status = lowerEveryRank(input, loaded, diagnostics, lowered); status != kExitOk) return status;
    try {
      *outcome = options_.lowered ? validateLowered(*loaded.program, lowered.inputs, lowered.rings, *backend, validate)
                                  : validateProgram(*loaded.program, *backend, validate);
    } catch (const std::bad_alloc&) {  // reported in one place, runCli, with the figure and the way out
      const Failure failure(FailureKind::OutOfMemory, outOfMemoryMessage(input.name, *loaded.program, shrink->factor,
                                                                         options_.dynamicDim, processCount()));
      if (processes_ != nullptr) endAllProcesses(*processes_, failure);  // perhaps this process alone
      throw failure;
    } catch (const std::exception& e) {
      // A Failure (the budget's) comes from the program, so every process meets it alike.
      // A reshard's plan refused (bad input: exit 1) is reported as it is, in one place (runCli).
      const auto* failure = dynamic_cast<const Failure*>(&e);
      if (failure != nullptr && (processes_ != nullptr || failure->kind == FailureKind::BadInput)) throw;
      const bool backendFailed = dynamic_cast<const BackendError*>(&e) != nullptr;
      const std::string message = backendFailed  // else a bug: say so rather than crash
          ? fmt::format("the {} backend failed on {}: {}", backend->name(), input.name, e.what())
          : fmt::format("validate could not go on with {}: {}", input.name, e.what());
      if (processes_ != nullptr) endAllProcesses(*processes_, Failure(FailureKind::Usage, message));
      diagnostics.error(message);
      return kExitUsage;
    }
    reportDivergences(**outcome, diagnostics, options_.lowered);
    if (!(*outcome)->divergences.empty()) return kExitBadInput;
    if (options_.strict && (*outcome)->notSimulatedOps > 0) return kExitUsage;
    return kExitOk;
  }

  // validate --lowered: the program lowered for each of its ranks, each a
  // clone (ir/clone/program_clone.h) of the dist program as it is run: after the
  // pass and the shrink.
  struct LoweredRanks {
    explicit LoweredRanks(const Reporter& reporter) : ranks(reporter.engine()) {}
    // What the ranks' runs say again of the dist program's ops: not shown.
    DiagnosticEngine ranks;
    std::vector<std::unique_ptr<Program>> programs;
    std::vector<RankInput> inputs;
    GroupTable rings;
  };

  int lowerEveryRank(const InputProgram& input, const LoadedProgram& loaded, DiagnosticEngine& diagnostics,
                     LoweredRanks& lowered) {
    if (!checkLowerable(*loaded.program, diagnostics)) return kExitBadInput;
    const std::vector<int64_t> ranks = programRanks(*loaded.program);
    // Every rank's program is held and run on a thread of its own: refused
    // before any is lowered (2,048 ranks took 9 s and 404 MB to be refused after).
    if (ranks.size() > kMaxRendezvousRanks) {
      diagnostics.error(fmt::format("validate --lowered runs at most {} ranks together, each on a thread of its own; "
                                    "the program has {}: validate it without --lowered",
                                    kMaxRendezvousRanks, ranks.size()));
      return kExitBadInput;
    }
    for (int64_t rank : ranks) {
      std::unique_ptr<Program> program = cloneProgram(*loaded.program);
      const LowerOptions lower{rank, LowerStage::Dense,
                               options_.lowering == LoweringKind::Plan ? &options_.costs : nullptr, options_.release};
      const LowerSummary summary = lowerProgram(*program, lower, diagnostics);
      if (!summary.ok) return kExitBadInput;
      if (rank == ranks.front())
        if (auto refusal = loweringWorkRefusal("validate --lowered lowers", *loaded.program, ranks.size(),
                                               summary.groupMembers)) {
          diagnostics.error(*refusal);
          return kExitBadInput;
        }
      lowered.rings.insert(summary.rings.begin(), summary.rings.end());
      lowered.inputs.push_back({rank, program.get(), loaded.source.get(), fmt::format("{} rank {}", input.name, rank),
                                &lowered.ranks});
      lowered.programs.push_back(std::move(program));
    }
    return kExitOk;
  }

  int processCount() const { return processes_ != nullptr ? processes_->size() : 1; }

  const ValidateCommandOptions& options_;
  Reporter& reporter_;
  ValidateRun& run_;
  ProcessGroup* processes_;  // under mpirun with several processes
};

// validate under mpirun with several processes: the processes the ranks'
// kernels are shared out over (interp/share/rank_share.h); nullptr otherwise.
// Processes other than 0 write nothing: process 0 prints the one report all
// of them agree on.
std::unique_ptr<ProcessGroup> startValidateTeam() {
  const std::optional<MpiLaunch> launch = detectMpiLaunch([](const char* name) { return std::getenv(name); });
  if (!launch || launch->size == 1) return nullptr;
  std::string error;
  std::unique_ptr<ProcessGroup> processes = startProcessGroup(&error);
  if (!processes) {  // with no world, each process says why it stops
    const int rank = launch->rank.value_or(0);
    throw Failure(FailureKind::Usage, fmt::format("{}validate was started as one of several MPI processes ({}), "
                                                  "but {}",
                                                  rank == 0 ? "" : fmt::format("process {}: ", rank),
                                                  launch->variable, error));
  }
  if (processes->size() == 1) return nullptr;
  if (processes->rank() != 0) {
    std::fflush(nullptr);
    savedStderr = dup(STDERR_FILENO);
    if (std::freopen("/dev/null", "w", stdout) == nullptr || std::freopen("/dev/null", "w", stderr) == nullptr)
      endAllProcesses(*processes, Failure(FailureKind::Io, "cannot write to /dev/null"));
  }
  return processes;
}

// validate's modes that cannot share ranks out over processes: the flag, or
// nullptr when the run can.
const char* refusedUnderMpi(const ValidateCommandOptions& options) {
  return options.lowered                        ? "--lowered"
         : options.backend != BackendKind::Cpu ? "--backend nccl"
                                               : nullptr;
}

int runValidate(const ValidateCommandOptions& options, Reporter& reporter) {
  // Declared first: MPI_Finalize comes after everything else.
  const std::unique_ptr<ProcessGroup> processes = startValidateTeam();
  if (const char* refused = refusedUnderMpi(options); processes && refused) {
    // Every process finds this; process 0 reports it. The others end first
    // with status 0: one ending nonzero makes mpiexec stop process 0, which
    // then may not have written the message yet (a race the suite hit).
    if (processes->rank() != 0) return kExitOk;
    throw Failure(FailureKind::Usage,
                  fmt::format("validate {} runs in one process: under mpirun -np {} only --backend cpu without "
                              "--lowered shares the ranks out (run it without mpirun)",
                              refused, processes->size()));
  }
  const std::vector<std::string> files = expandInputs(options.inputs, reporter);
  ValidateRun run;
  InputValidator validator(options, reporter, run, processes.get());
  // The report is the command's result: its lines go to the output, not
  // forEachInput's summaries.
  const InputRun inputs = forEachInput(files, options.inputs, reporter, standardError, std::ref(validator));
  std::string report = run.text;
  if (inputs.programs > 1)
    report += fmt::format("validated {}: {}, {}, {} failed\n", countedIn(inputs.programs, "program", inputs.files, "file"),
                          plural(run.matching, "matches", "match"), plural(run.diverging, "diverges", "diverge"),
                          run.failed);
  if (options.json) {
    Json document = documentJson("validate");
    document["backend"] = choiceName(backendChoices(), options.backend);
    document["seed"] = options.seed;
    document["files"] = std::move(run.files);
    document["failed"] = run.failed;
    report = dumpJson(document);
  }
  DiagnosticEngine diagnostics = reporter.engine();
  const int written = writeTextOutput(report, options.output, diagnostics);
  reporter.report(diagnostics);
  return written != kExitOk ? written : inputs.status;
}

SubcommandRunner defineValidate(CLI::App& command, ReportingOptions& reporting) {
  auto options = std::make_shared<ValidateCommandOptions>();
  ValidateCommandOptions& validate = *options;
  addInputsOutputProgram(command, validate.inputs, validate.output);
  command.add_flag("--apply", validate.apply, "Run Paddle's mix2dist pass (folding dist_op.shard_tensor) and the partition pass first, and validate the output");
  addPartitionFlags(command, validate.pass);
  addChoiceOption(command, "--backend", validate.backend, backendChoices(), "Where the reshards run");
  command.add_option("--seed", validate.seed, "Seed of the program's input values")
      ->check(unsignedInteger())
      ->capture_default_str();
  command.add_option("--dynamic-dim", validate.dynamicDim, "Size given to -1 dims of input shapes")
      ->check(integerIn(1, std::numeric_limits<int64_t>::max()))
      ->capture_default_str();
  command.add_option("--rtol", validate.rtol, "Relative tolerance (default: by element type)")
      ->check(nonNegativeNumber());
  command.add_option("--atol", validate.atol, "Absolute tolerance (default: by element type)")
      ->check(nonNegativeNumber());
  command.add_option("--max-work", validate.budget.maxWork,
                     "Refuse a program needing more element operations than this: each op run costs its result elements (times a matmul's contracted size) plus 1000, twice (0 = no limit)")
      ->check(unsignedInteger())
      ->capture_default_str();
  command.add_option("--max-memory", validate.budget.maxMemoryBytes,
                     "Refuse a program whose values need more bytes than this in one process (under mpirun "
                     "-np P: the serial values and 1/P of the ranks' pieces; 0 = no limit)")
      ->check(unsignedInteger())
      ->capture_default_str();
  command.add_flag("--all", validate.all, "Go on after the first divergence and report every one");
  command.add_flag("--json", validate.json, "Write the report as JSON (schema/validate.schema.json)");
  command.add_flag("--strict", validate.strict, "Exit 2 when some op cannot be simulated");
  addShrinkOption(command, validate.shrink,
                  "the program's values exceed 2^25 elements or --max-memory, or its ops --max-work");
  CLI::Option* lowered = command.add_flag("--lowered", validate.lowered,
                   "Lower the program for every rank (as lower does) and run each rank's own dense program, its "
                   "communication ops across the ranks, against the serial program");
  addChoiceOption(command, "--lowering", validate.lowering, loweringChoices(), kLoweringHelp)->needs(lowered);
  addChoiceOption(command, "--paddle", validate.release, paddleReleaseChoices(), kPaddleReleaseHelp)->needs(lowered);
  addReportingFlags(command, reporting);
  command.footer(fmt::format("{}\nExit status: 0 every op checked matches the serial program, 1 bad input or a "
                             "divergence, {}, or (--strict) some op cannot be simulated.",
                             kSeveralInputs, kUsageExit));
  return [options](Reporter& reporter) { return runValidate(*options, reporter); };
}

}  // namespace

const SubcommandSpec kValidateSubcommand{"validate",
                                         "Run the whole program serially and on every rank (CPU reference kernels; "
                                         "reshards on the CPU or NCCL) and report the first op whose distributed "
                                         "result differs from the serial program's",
                                         defineValidate};

}  // namespace reshardctl
