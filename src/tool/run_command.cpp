// `reshardctl run`: read (→ partition pass with --apply) → plan every
// dist_op.reshard → run each plan on real data on a backend (the CPU
// reference, or GPUs through NCCL) → a PASS/FAIL row per reshard.
//
// Under mpirun every process runs this same code on the same input: with
// `--backend nccl` one process per rank (multi_process.h); with `--backend
// cpu` the ranks shared out over the processes, each making, moving and
// checking its own ranks' pieces (exec/multiprocess/shared_execution.h). Each stage that can fail
// on some processes only ends with every process agreeing on one exit status
// before the next collective call, so none is left waiting; process 0 alone
// prints the table and the shared messages.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <set>

#include <unistd.h>

#include <fmt/format.h>

#include "exec/execution_backend.h"
#include "exec/multiprocess/multi_process.h"
#include "exec/multiprocess/process_group.h"
#include "exec/reshard_run.h"
#include "exec/plan_footprint.h"
#include "interp/budget/work_budget.h"
#include "interp/shrink/shrink.h"
#include "report/json_export.h"
#include "report/plan_output.h"
#include "report/reshard_report.h"
#include "report/result_json.h"
#include "reshard/placement.h"
#include "passes/partition_pass.h"
#include "reshard/cost_model.h"
#include "support/failure.h"
#include "support/text.h"
#include "tool/cli.h"
#include "tool/cli_support.h"
#include "tool/input_files.h"
#include "tool/program_output.h"
#include "tool/reporting.h"

namespace reshardctl {

namespace {

// --scale beyond this makes every tensor too large for the host reference
// (reshard_run.h: at most 2^27 elements); --iters beyond this is a typo.
constexpr int64_t kMaxRunScale = int64_t{1} << 27;
constexpr int kMaxRunIterations = 1'000'000;

// How --backend nccl finds its processes (multi_process.h).
enum class Launcher {
  Auto,  // one process per rank when mpirun started more than one process
  Mpi,   // always that mode, also for one process
  None,  // one process drives every GPU of the node
};

// Built when run's flags are (no static object outlives another subcommand's run).
const Choices<Launcher>& launcherChoices() {
  static const Choices<Launcher> choices = {
      {"auto", Launcher::Auto}, {"mpi", Launcher::Mpi}, {"none", Launcher::None}};
  return choices;
}

struct RunOptions {
  std::string input = "-";
  std::string output = "-";  // the report
  std::string program;  // --program N|TEXT: which program of a file holding several (input_files.h)
  bool fragment = false;  // --fragment (input_files.h)
  BackendKind backend = BackendKind::Cpu;
  Launcher launcher = Launcher::Auto;
  uint64_t seed = 1;
  int64_t scale = 1;       // multiplies every value's largest dim
  int iterations = 1;      // > 1: a warm-up, then the mean time of the rest
  bool apply = false;      // run the partition pass first
  PartitionOptions pass;  // the partition pass's switches
  CostModel costs;
  std::string fault;  // testing hook: "RESHARD:STEP:offset|drop" (reshard_run.h)
  bool json = false;  // the report as JSON (schema/run.schema.json)
  std::string shrink = "auto";  // interp/shrink/shrink.h's ShrinkRequest, as written
};

// What `--shrink=auto` weighs for run: memory alone (run's work is its
// reshards, not the program's ops), validate's default --max-memory.
const AutoShrinkBudget kRunShrinkBudget{WorkBudget{0, WorkBudget{}.maxMemoryBytes}, 4};

// What one reshard's run may hold and do on the host (exec/plan_footprint.h):
// validate's default --max-memory and --max-work. Under mpirun the memory is
// each process's, the ranks' pieces shared over them.
constexpr uint64_t kRunMaxBytes = WorkBudget{}.maxMemoryBytes;
constexpr uint64_t kRunMaxWork = WorkBudget{}.maxWork;

using Clock = std::chrono::steady_clock;

// The processes running this command: one, or a ProcessGroup under mpirun.
struct Team {
  ProcessGroup* group = nullptr;

  int rank() const { return group != nullptr ? group->rank() : 0; }
  bool leader() const { return rank() == 0; }
  // Every process's status for a stage, made one (a collective under MPI).
  AgreedStatus agree(int status) const {
    return group != nullptr ? agreeOnStatus(group->allGather(status)) : AgreedStatus{status, 0};
  }
};

struct Row {
  const ReshardReport* report;
  std::optional<Plan> plan;  // at the run's (scaled) size
  ReshardRequest request;
  ReshardOutcome outcome;
};

std::string transitionText(const Plan& plan) {
  if (plan.crossMesh()) return fmt::format("{} -> {}", layoutText(plan.src), layoutText(plan.dst));
  return fmt::format("{} -> {}", placementsText(plan.src.placements), placementsText(plan.dst.placements));
}

// Every process id a plan touches: each gets a GPU under the NCCL backend.
std::vector<int64_t> ranksOf(const std::vector<Row>& rows) {
  std::set<int64_t> ranks;
  for (const Row& row : rows) {
    if (!row.plan) continue;
    for (const ProcessMesh* mesh : {&row.plan->src.mesh, &row.plan->dst.mesh})
      ranks.insert(mesh->processIds.begin(), mesh->processIds.end());
  }
  return {ranks.begin(), ranks.end()};
}

std::vector<Row> planRows(const std::vector<ReshardReport>& reports, const RunOptions& options) {
  std::vector<Row> rows;
  for (const ReshardReport& report : reports) {
    Row row{&report, std::nullopt, report.request, {}};
    try {
      row.request = scaledRequest(report.request, options.scale);
      row.plan = planMinCost(row.request, options.costs);
    } catch (const std::bad_alloc&) {
      throw;  // out of memory is never a failing row (support/failure.h)
    } catch (const std::exception& e) {
      row.outcome.problem = e.what();
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// Says, for every planned row whose run would pass run's bounds, why, before
// any row runs; false when one does. Alike on every process: no collective.
bool withinRunBounds(const std::vector<Row>& rows, const RunOptions& options, const Team& team,
                     DiagnosticEngine& diagnostics) {
  const uint64_t processes =
      team.group != nullptr && options.backend == BackendKind::Cpu ? static_cast<uint64_t>(team.group->size()) : 1;
  const std::string bytesLimit = fmt::format("run holds ({} bytes{})", kRunMaxBytes * processes,
                                             processes > 1 ? fmt::format(", {} processes", processes) : "");
  const std::string workLimit = fmt::format("run does ({})", kRunMaxWork);
  const FootprintLimits limits{kRunMaxBytes * processes, bytesLimit, kRunMaxWork, workLimit};
  bool within = true;
  for (const Row& row : rows) {
    if (!row.plan) continue;
    const std::string problem = runFootprintProblem(row.request, *row.plan, options.iterations, limits);
    if (problem.empty()) continue;
    diagnostics.error(fmt::format("run refuses the reshard at line {} ({} = {}): {}; run a smaller copy with "
                                  "--shrink or a smaller --scale",
                                  row.report->line, row.report->result, row.report->input, problem));
    within = false;
  }
  return within;
}

// " on R ranks in P processes" under a shared cpu run, else "".
std::string sharedText(const std::vector<Row>& rows, const Team& team, const RunOptions& options) {
  if (team.group == nullptr || options.backend != BackendKind::Cpu) return "";
  const size_t ranks = ranksOf(rows).size();
  return fmt::format(" on {} in {} processes", plural(ranks, "rank", "ranks"), team.group->size());
}

std::string formatTable(const std::vector<Row>& rows, std::string_view backend, const ShrinkOutcome& shrink,
                        const std::string& shared) {
  std::string out = shrink.line.empty() ? "" : "run " + shrink.line + "\n";
  out += fmt::format("{:>5}  {:<18} {:<34} {:<6} {:>9} {:>12} {:>10} {:>11}\n", "line",
                                "reshard", "transition", "result", "max_err", "bytes", "time_us",
                                "busbw_GB/s");
  size_t passed = 0;
  for (const Row& row : rows) {
    const ReshardReport& r = *row.report;
    std::string reshard = fmt::format("{} = {}", r.result, r.input);
    std::string transition = row.plan ? transitionText(*row.plan) : "-";
    const ReshardOutcome& o = row.outcome;
    out += fmt::format("{:>5}  {:<18} {:<34} {:<6} {:>9.3g} {:>12} {:>10.2f} {:>11.2f}\n", r.line, reshard,
                       transition, o.passed ? "PASS" : "FAIL", o.maxError, o.bytesMoved, o.seconds * 1e6,
                       o.busBandwidthGBs());
    if (!o.passed) out += fmt::format("       {}\n", o.problem);
    passed += o.passed ? 1 : 0;
  }
  out += fmt::format("backend {}{}\n{} passed, {} failed\n", backend, shared, passed, rows.size() - passed);
  return out;
}

// `--json`: the table's facts, with the layouts as plan --json has them.
std::string formatJson(const std::vector<Row>& rows, std::string_view backend, const std::string& source,
                       const ShrinkOutcome& shrink) {
  nlohmann::ordered_json document = documentJson("run");
  document["source"] = source;
  document["backend"] = backend;
  if (!shrink.line.empty()) document["shrink"] = {{"factor", shrink.factor}, {"line", "run " + shrink.line}};
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  size_t passed = 0;
  for (const Row& row : rows) {
    const ReshardReport& r = *row.report;
    const ReshardOutcome& o = row.outcome;
    passed += o.passed ? 1 : 0;
    list.push_back({{"line", r.line},
                    {"result", r.result},
                    {"input", r.input},
                    {"src", row.plan ? layoutJson(row.plan->src, row.plan->shape.size()) : nullptr},
                    {"dst", row.plan ? layoutJson(row.plan->dst, row.plan->shape.size()) : nullptr},
                    {"passed", o.passed},
                    {"problem", o.passed ? nullptr : nlohmann::ordered_json(o.problem)},
                    {"max_error", o.maxError},
                    {"bytes", o.bytesMoved},
                    {"time_us", o.seconds * 1e6},
                    {"busbw_gbs", o.busBandwidthGBs()}});
  }
  document["reshards"] = std::move(list);
  document["passed"] = passed;
  document["failed"] = rows.size() - passed;
  return dumpJson(document);
}

// Runs every row; prints progress on stderr (process 0 only) once the run
// takes a while.
void runRows(std::vector<Row>& rows, ExecutionBackend& backend, const RunOptions& options,
             const std::optional<Fault>& fault, const Team& team, Reporter& reporter) {
  RunSettings settings;
  settings.seed = options.seed;
  settings.iterations = options.iterations;
  if (team.group != nullptr && options.backend == BackendKind::Cpu) {
    // Contiguous blocks of the ranks, in process-id order: the ranks of a
    // group (consecutive on a mesh's last dim) mostly share a process.
    const std::vector<int64_t> ranks = ranksOf(rows);
    const auto processes = static_cast<size_t>(team.group->size());
    settings.group = team.group;
    settings.ownerOf = [ranks, processes](int64_t id) {
      const auto at = static_cast<size_t>(std::lower_bound(ranks.begin(), ranks.end(), id) - ranks.begin());
      return static_cast<int>(at * processes / std::max<size_t>(ranks.size(), 1));
    };
  }
  // Progress ("run: 9/12 reshards", once a second after the first two) is
  // for a person watching a terminal, as git shows its progress: a log or a
  // pipeline reading standard error gets only the results.
  const bool showProgress = team.leader() && isatty(STDERR_FILENO) != 0;
  const Clock::time_point start = Clock::now();
  Clock::time_point lastProgress = start;
  for (size_t i = 0; i < rows.size(); ++i) {
    Row& row = rows[i];
    if (row.plan) {
      const Fault* injected = fault && fault->reshard == i + 1 ? &*fault : nullptr;
      row.outcome = runReshard(row.request, *row.plan, backend, settings, i, injected);
    }
    Clock::time_point now = Clock::now();
    if (showProgress && now - start > std::chrono::seconds(2) && now - lastProgress > std::chrono::seconds(1)) {
      reporter.summary(standardError(), fmt::format("run: {}/{} reshards", i + 1, rows.size()));
      lastProgress = now;
    }
  }
}

// The shrink (--shrink), the partition pass (with --apply) and every
// reshard's report: what each process does alone before the backend starts.
// The shrink comes first, so the pass plans the reshards at the size they run.
int prepare(LoadedProgram& loaded, const RunOptions& options, DiagnosticEngine& diagnostics,
            std::vector<ReshardReport>& reports, std::optional<Fault>& fault, ShrinkOutcome& shrink) {
  if (!options.fault.empty() && !(fault = parseFault(options.fault))) {
    diagnostics.error("--inject-fault takes RESHARD:STEP:offset|drop, e.g. 1:0:drop");
    return kExitUsage;
  }
  ShrinkRequest request = *parseShrinkRequest(options.shrink);
  // --scale asks for a size: auto leaves it (a factor asked for still shrinks first).
  if (options.scale > 1 && request.mode == ShrinkRequest::Mode::Auto) request.mode = ShrinkRequest::Mode::Off;
  shrink = shrinkProgram(*loaded.program, request, diagnostics, kRunShrinkBudget);
  if (!shrink.ok) return kExitBadInput;
  if (!reportLoadedReshards(*loaded.program, *loaded.source, options.apply ? &options.pass : nullptr, options.costs,
                            diagnostics, &reports))
    return kExitBadInput;
  return kExitOk;
}

std::unique_ptr<ExecutionBackend> makeBackend(const RunOptions& options, const std::vector<Row>& rows,
                                              const Team& team, std::string* error) {
  if (options.backend == BackendKind::Cpu) return makeCpuBackend();
  return makeNcclBackend(ranksOf(rows), error, team.group);
}

// Runs the planned rows on the backend and writes the table (process 0).
int runPlanned(std::vector<Row>& rows, const RunOptions& options, const std::string& source,
               const std::optional<Fault>& fault, const ShrinkOutcome& shrink, const Team& team,
               DiagnosticEngine& diagnostics, Reporter& reporter) {
  if (team.group != nullptr && options.backend == BackendKind::Nccl) {
    // Known to every process alike, so no process waits for another: checked
    // before any collective call.
    const std::string problem = processCountProblem(ranksOf(rows), team.group->size());
    if (!problem.empty()) {
      diagnostics.error(problem);
      return kExitUsage;
    }
  }
  std::string error;
  std::unique_ptr<ExecutionBackend> backend = makeBackend(options, rows, team, &error);
  if (!backend) {
    setMessageAndListing(diagnostics.error(""), fmt::format("the {} backend is not available: {}",
                                                            choiceName(backendChoices(), options.backend), error));
    return kExitUsage;
  }
  try {
    runRows(rows, *backend, options, fault, team, reporter);
  } catch (const BackendError& e) {
    const std::string problem = fmt::format("the {} backend failed: {}", backend->name(), e.what());
    // The other processes may be inside a collective that waits for this one.
    if (team.group != nullptr) team.group->abort(problem, kExitUsage);
    diagnostics.error(problem);
    return kExitUsage;
  }
  // Under MPI the processes agree on every verdict (the nccl backend's
  // exchange, piece_exchange.h; the cpu one's shared check); only the output
  // can fail on process 0 alone.
  const std::string report = options.json ? formatJson(rows, backend->name(), source, shrink)
                                          : formatTable(rows, backend->name(), shrink, sharedText(rows, team, options));
  const int written = team.leader() ? writeTextOutput(report, options.output, diagnostics) : kExitOk;
  const int status = team.agree(written).status;
  bool allPassed = std::all_of(rows.begin(), rows.end(), [](const Row& row) { return row.outcome.passed; });
  return status != kExitOk ? status : allPassed ? kExitOk : kExitBadInput;
}

// The processes of a `--backend nccl` run that mpirun started with more than
// one process; nullptr otherwise. Throws a Failure when this process must stop.
std::unique_ptr<ProcessGroup> startTeam(const RunOptions& options) {
  if (options.launcher == Launcher::None) return nullptr;
  std::optional<MpiLaunch> launch = detectMpiLaunch([](const char* name) { return std::getenv(name); });
  if (options.launcher == Launcher::Mpi && !launch) launch = MpiLaunch{"--launcher mpi", 1, 0};
  if (!launch || (launch->size == 1 && options.launcher != Launcher::Mpi)) return nullptr;
  // A cpu run in one process holds every rank already.
  if (options.backend == BackendKind::Cpu && launch->size.value_or(2) == 1) return nullptr;
  std::string error;
  std::unique_ptr<ProcessGroup> processes = startProcessGroup(&error);
  if (!processes) {
    // Going on would have every process drive every GPU of its node. Each
    // process says why it stops (with no world, none can speak for the rest).
    const int rank = launch->rank.value_or(0);
    throw Failure(FailureKind::Usage, fmt::format("{}the multi-process mode was asked for ({}), but {}",
                                                  rank == 0 ? "" : fmt::format("process {}: ", rank),
                                                  launch->variable, error));
  }
  return processes;
}

int runRun(const RunOptions& options, Reporter& reporter) {
  // Declared first, so MPI_Finalize comes after the backend is gone.
  std::unique_ptr<ProcessGroup> processes = startTeam(options);
  // --launcher mpi keeps a world of one in the multi-process mode: the way to
  // try that mode's path (unique id, ncclCommInitRank, splits) on one GPU.
  const bool multi = processes != nullptr && (processes->size() > 1 || options.launcher == Launcher::Mpi);
  const Team team{multi ? processes.get() : nullptr};

  DiagnosticEngine diagnostics = reporter.engine();
  LoadedProgram loaded = loadProgram(options.input, diagnostics, options.program, options.fragment);
  std::vector<ReshardReport> reports;
  std::optional<Fault> fault;
  ShrinkOutcome shrink;
  int status = loaded.program ? prepare(loaded, options, diagnostics, reports, fault, shrink) : loaded.failure;
  const AgreedStatus prepared = team.agree(status);
  if (prepared.status != kExitOk) {
    if (team.rank() == prepared.printer) reporter.report(diagnostics);
    return prepared.status;
  }
  if (team.group != nullptr && options.backend == BackendKind::Cpu && fault) {  // alike on every process
    diagnostics.error("--inject-fault runs in one process: under mpirun the ranks are shared out (run it without "
                      "mpirun)");
    if (team.leader()) reporter.report(diagnostics);
    return kExitUsage;
  }
  std::vector<Row> rows = planRows(reports, options);
  if (!withinRunBounds(rows, options, team, diagnostics)) {
    if (team.leader()) reporter.report(diagnostics);
    return kExitBadInput;
  }
  status = runPlanned(rows, options, loaded.source->name(), fault, shrink, team, diagnostics, reporter);
  if (team.leader()) reporter.report(diagnostics);
  return status;
}

SubcommandRunner defineRun(CLI::App& command, ReportingOptions& reporting) {
  auto flags = std::make_shared<WithCostFlags<RunOptions>>();
  RunOptions& run = flags->options;
  addInputOutput(command, run.input, run.output);
  addFragmentFlag(command, run.fragment);
  addProgramOption(command, run.program);
  addChoiceOption(command, "--backend", run.backend, backendChoices(), "Where the ranks run");
  command.add_option("--seed", run.seed, "Seed of the random test tensors")
      ->check(unsignedInteger())
      ->capture_default_str();
  command.add_option("--scale", run.scale, "Multiply every value's largest dim by this")
      ->check(integerIn(1, kMaxRunScale))
      ->capture_default_str();
  command.add_option("--iters", run.iterations, "Runs per reshard; with more than one, the first "
                                                "warms up and the time is the mean of the rest")
      ->check(integerIn(1, kMaxRunIterations))
      ->capture_default_str();
  command.add_flag("--apply", run.apply, "Run the partition pass first and run every reshard after it");
  addChoiceOption(command, "--launcher", run.launcher, launcherChoices(),
                  "With --backend nccl: auto = one process per rank when mpirun started more than one "
                  "process; mpi = always that mode (also for one process); none = one process drives "
                  "every GPU of the node");
  command.add_flag("--json", run.json, "Write the report as JSON (schema/run.schema.json)");
  addShrinkOption(command, run.shrink, "the program's values exceed 2^25 elements or 4 GiB, and not with --scale");
  addPartitionFlags(command, run.pass);
  addCostModelFlags(command, run.costs, flags->costs);
  // For tests of `run` itself: break one step on purpose (reshard_run.h).
  command.add_option("--inject-fault", run.fault)->group("");
  addReportingFlags(command, reporting);
  command.footer(fmt::format("Exit status: 0 every reshard passed, 1 bad input or a failing reshard, {}, or the "
                             "backend is unavailable or failed (no GPU, NCCL error, timeout).",
                             kUsageExit));
  return runnerWithCosts(flags, runRun);
}

}  // namespace

const SubcommandSpec kRunSubcommand{"run",
                                    "Execute every dist_op.reshard on real data (CPU reference ranks, or GPUs "
                                    "through NCCL) and check that every rank ends with exactly its piece",
                                    defineRun};

}  // namespace reshardctl
