// `reshardctl run`: read (→ partition pass with --apply) → plan every
// dist_op.reshard → run each plan on real data on a backend (the CPU
// reference, or GPUs through NCCL) → a PASS/FAIL row per reshard.
#include <chrono>
#include <cstdio>
#include <set>

#include <fmt/format.h>

#include "commands.h"
#include "execution_backend.h"
#include "placement.h"
#include "program_io.h"
#include "reshard_report.h"
#include "reshard_run.h"

namespace reshardctl {

namespace {

using Clock = std::chrono::steady_clock;

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
    Row row{&report, std::nullopt, scaledRequest(report.request, options.scale), {}};
    try {
      row.plan = planMinCost(row.request, options.costs);
    } catch (const std::exception& e) {
      row.outcome.problem = e.what();
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string formatTable(const std::vector<Row>& rows, std::string_view backend) {
  std::string out = fmt::format("{:>5}  {:<18} {:<34} {:<6} {:>9} {:>12} {:>10} {:>11}\n", "line",
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
  out += fmt::format("backend {}\n{} passed, {} failed\n", backend, passed, rows.size() - passed);
  return out;
}

std::unique_ptr<ExecutionBackend> makeBackend(const RunOptions& options, const std::vector<Row>& rows,
                                              std::string* error) {
  if (options.backend == "cpu") return makeCpuBackend();
  return makeNcclBackend(ranksOf(rows), error);
}

// Runs every row; prints progress on stderr once the run takes a while.
void runRows(std::vector<Row>& rows, ExecutionBackend& backend, const RunOptions& options,
             const std::optional<Fault>& fault) {
  const RunSettings settings{options.seed, options.iterations};
  const Clock::time_point start = Clock::now();
  Clock::time_point lastProgress = start;
  for (size_t i = 0; i < rows.size(); ++i) {
    Row& row = rows[i];
    if (row.plan) {
      const Fault* injected = fault && fault->reshard == i + 1 ? &*fault : nullptr;
      row.outcome = runReshard(row.request, *row.plan, backend, settings, i, injected);
    }
    Clock::time_point now = Clock::now();
    if (now - start > std::chrono::seconds(2) && now - lastProgress > std::chrono::seconds(1)) {
      std::fprintf(stderr, "run: %zu/%zu reshards\n", i + 1, rows.size());
      lastProgress = now;
    }
  }
}

int runLoaded(LoadedProgram& loaded, const RunOptions& options, DiagnosticEngine& diagnostics) {
  std::optional<Fault> fault;
  if (!options.fault.empty() && !(fault = parseFault(options.fault))) {
    diagnostics.error("--inject-fault takes RESHARD:STEP:offset|drop, e.g. 1:0:drop");
    return kExitUsage;
  }
  std::vector<ReshardReport> reports;
  if (!reportLoadedReshards(*loaded.program, *loaded.source, options.apply ? &options.pass : nullptr, options.costs,
                            diagnostics, &reports))
    return kExitBadInput;
  std::vector<Row> rows = planRows(reports, options);

  std::string error;
  std::unique_ptr<ExecutionBackend> backend = makeBackend(options, rows, &error);
  if (!backend) {
    diagnostics.error(fmt::format("the {} backend is not available: {}", options.backend, error));
    return kExitUsage;
  }
  try {
    runRows(rows, *backend, options, fault);
  } catch (const BackendError& e) {
    diagnostics.error(fmt::format("the {} backend failed: {}", backend->name(), e.what()));
    return kExitUsage;
  }
  int status = writeTextOutput(formatTable(rows, backend->name()), options.output, diagnostics);
  bool allPassed = std::all_of(rows.begin(), rows.end(), [](const Row& row) { return row.outcome.passed; });
  return status != kExitOk ? status : allPassed ? kExitOk : kExitBadInput;
}

}  // namespace

int runRun(const RunOptions& options) {
  DiagnosticEngine diagnostics;
  LoadedProgram loaded = loadProgram(options.input, diagnostics);
  const int status = loaded.program ? runLoaded(loaded, options, diagnostics) : loaded.failure;
  diagnostics.flush(stderr);
  return status;
}

}  // namespace reshardctl
