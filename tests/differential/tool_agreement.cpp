// `apply --check`, `apply --stats`, `diff`, `plan` and `run` agreeing with
// `apply`: in process through the libraries the subcommands call, and (with
// CheckSettings::toolPath) through the reshardctl command line (checks.h).
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "checks.h"
#include "exec/execution_backend.h"
#include "exec/reshard_run.h"
#include "passes/check_report.h"
#include "passes/program_diff.h"
#include "report/plan_output.h"
#include "report/reshard_report.h"
#include "syntax/printer.h"

namespace differential {

using namespace reshardctl;

namespace {

const CostModel kCosts;

size_t noLine(const Operation&) { return 0; }

// The column of the op on 1-based `line` of `text`: its indentation + 1.
size_t opColumn(const std::string& text, size_t line) {
  size_t start = 0;
  for (size_t n = 1; n < line && start != std::string::npos; ++n) start = text.find('\n', start) + 1;
  return text.find_first_not_of(' ', start) - start + 1;
}

// What `apply --check` prints: a warning per reshard at its op, then the count.
std::string expectedCheckText(const ProgramModel& program, const GenRun& run, const std::string& name) {
  std::string out;
  for (const ExpectedReshard& reshard : run.expected.reshards) {
    const size_t line = run.input.opLine[static_cast<size_t>(reshard.op)];
    out += name + ":" + std::to_string(line) + ":" + std::to_string(opColumn(run.input.text, line)) +
           ": warning: " + program.ops[static_cast<size_t>(reshard.op)].name + " operand " +
           std::to_string(reshard.operand) + " (" + run.input.valueName[static_cast<size_t>(reshard.value)] +
           "): would insert dist_op.reshard from " + reshard.srcText + " to " + reshard.dstText + "\n";
  }
  return out + neededReshardsSummary(run.expected.reshards.size()) + "\n";
}

size_t consumerCount(const GenRun& run) {
  std::set<int> consumers;
  for (const ExpectedReshard& reshard : run.expected.reshards) consumers.insert(reshard.op);
  return consumers.size();
}

std::vector<ReshardReport> insertedReports(const GenRun& run) {
  std::vector<Operation*> inserted(run.result.inserted.begin(), run.result.inserted.end());
  return planReshardOps(*run.loaded.program, inserted, kCosts, noLine);
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct CommandResult {
  int status = -1;
  std::string out, err;
};

// Runs `tool ARGS` in `dir`, capturing both streams.
CommandResult runTool(const std::string& tool, const std::filesystem::path& dir, const std::string& args) {
  const std::string line = "cd '" + dir.string() + "' && '" + tool + "' " + args + " >stdout.txt 2>stderr.txt";
  const int raw = std::system(line.c_str());
  CommandResult result;
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  result.out = readFile(dir / "stdout.txt");
  result.err = readFile(dir / "stderr.txt");
  return result;
}

}  // namespace

void Checker::checkCheckReport(const GenRun& run) {
  Loaded fresh = load("check.ir", run.input.text);
  if (!fresh.program) return;  // reported by applyOne
  const ValueNames names(*fresh.program);
  const PartitionResult result = applyPartitionPass(*fresh.program, *fresh.diagnostics);
  std::string actual;
  for (const NeededReshard& needed : neededReshards(result, names)) {
    const Diagnostic d = neededReshardDiagnostic(needed, fresh.program->generation());
    const SourceFile::LineCol where = fresh.source->lineCol(d.offset);
    actual += "check.ir:" + std::to_string(where.line) + ":" + std::to_string(where.column) +
              ": warning: " + d.message + "\n";
  }
  actual += neededReshardsSummary(result.inserted.size()) + "\n";
  const std::string expected = expectedCheckText(program_, run, "check.ir");
  if (actual != expected) fail("apply --check", run.gen, "expected:\n" + expected + "actual:\n" + actual);
}

void Checker::checkDiff(const GenRun& run) {
  Loaded before = load("before.ir", run.input.text);
  Loaded reread = load("after.ir", run.output);
  if (!before.program || !reread.program) return;  // reported elsewhere
  const ProgramDiff diff = diffPrograms(*before.program, *run.loaded.program, DiffOptions{});
  const size_t added = diff.count(OpChange::Kind::Added), removed = diff.count(OpChange::Kind::Removed),
               changed = diff.count(OpChange::Kind::Changed);
  if (added != run.expected.reshards.size() || removed != 0 || changed != consumerCount(run))
    fail("diff", run.gen,
         formatDiffStat(diff) + "; expected " + std::to_string(run.expected.reshards.size()) + " added, 0 removed, " +
             std::to_string(consumerCount(run)) + " changed");
  if (!diffPrograms(*run.loaded.program, *reread.program, DiffOptions{}).equal())
    fail("diff", run.gen, "apply's output read back differs from the program it was printed from");
  if (!diffPrograms(*before.program, *before.program, DiffOptions{}).equal())
    fail("diff", run.gen, "a program differs from itself");
}

void Checker::checkPlansAndRuns(const GenRun& run) {
  // --stats: the inserted reshards, planned.
  const std::vector<ReshardReport> stats = insertedReports(run);
  for (size_t k = 0; k < stats.size() && k < run.expected.reshards.size(); ++k)
    if ((stats[k].plan != nullptr) != run.expected.reshards[k].plannable)
      fail("apply --stats / plan", run.gen,
           "reshard " + std::to_string(k + 1) + (stats[k].plan ? " has a plan, the reference expects none"
                                                               : " has no plan: " + stats[k].error));
  // plan --apply, and plan on apply's output read back: the same reports
  // (generation A's text drops ids a second reading cannot always recover).
  const std::vector<ReshardReport> reports = planProgramReshards(*run.loaded.program, kCosts, noLine);
  if (run.gen != Gen::A) {
    Loaded again = load("applied.ir", run.output);
    if (again.program) {
      const std::string first = formatPlanTable(reports, kCosts);
      const std::string second = formatPlanTable(planProgramReshards(*again.program, kCosts, noLine), kCosts);
      if (first != second) fail("plan on apply's output", run.gen, "expected:\n" + first + "actual:\n" + second);
    }
  }
  if (!settings_.runPlans) return;
  for (const std::string& problem : runEveryReshard(*run.loaded.program, program_.seed)) fail("run", run.gen, problem);
}

std::vector<std::string> runEveryReshard(const Program& program, uint64_t seed) {
  std::vector<std::string> problems;
  const std::vector<ReshardReport> reports = planProgramReshards(program, kCosts, noLine);
  const std::unique_ptr<ExecutionBackend> backend = makeCpuBackend();
  for (size_t i = 0; i < reports.size(); ++i) {
    if (!reports[i].plan) continue;
    // As `run` does: dynamic (-1) dims get a size, and the plan is made for it.
    const ReshardRequest request = scaledRequest(reports[i].request, 1);
    const bool dynamic = request.shape != reports[i].request.shape;
    const Plan plan = dynamic ? planMinCost(request, kCosts) : *reports[i].plan;
    RunSettings settings;
    settings.seed = seed;
    const ReshardOutcome outcome = runReshard(request, plan, *backend, settings, i, nullptr);
    if (!outcome.passed) problems.push_back(layoutText(plan.src) + " -> " + layoutText(plan.dst) + ": " + outcome.problem);
  }
  return problems;
}

void Checker::checkCommandLine(const GenRun& run) {
  char pattern[] = "/tmp/reshardctl-differential.XXXXXX";
  if (!mkdtemp(pattern)) return;
  const std::filesystem::path dir(pattern);
  std::ofstream(dir / "in.ir", std::ios::binary) << run.input.text;
  const std::string& tool = settings_.toolPath;
  const size_t count = run.expected.reshards.size();

  CommandResult apply = runTool(tool, dir, "apply in.ir -o out.ir");
  if (apply.status != 0 || readFile(dir / "out.ir") != run.output)
    fail("command line: apply", run.gen, "exit " + std::to_string(apply.status) + ", output differs: " + apply.err);

  // Its findings go to standard error, as every command's do; standard output stays empty.
  CommandResult check = runTool(tool, dir, "apply --check in.ir");
  if (check.status != (count ? 1 : 0) || !check.out.empty() ||
      check.err != (count ? expectedCheckText(program_, run, "in.ir") : ""))
    fail("command line: apply --check", run.gen, "exit " + std::to_string(check.status) + ":\n" + check.err);

  CommandResult stats = runTool(tool, dir, "apply --stats in.ir -o /dev/null");
  const std::vector<ReshardReport> reports = insertedReports(run);
  size_t unplanned = 0;
  for (const ReshardReport& report : reports) unplanned += report.plan ? 0 : 1;
  std::string expectedStats = "apply: inserted " + planTotalText(reports);
  if (unplanned) expectedStats += " (" + std::to_string(unplanned) + " could not be planned)";
  if (stats.status != 0 || stats.err != expectedStats + "\n")
    fail("command line: apply --stats", run.gen, "expected: " + expectedStats + "\nactual: " + stats.err);

  CommandResult diff = runTool(tool, dir, "diff --stat in.ir out.ir");
  if (diff.status != (count ? 1 : 0) || (count && diff.out.find(std::to_string(count) + " ops added, 0 removed, " +
                                                                std::to_string(consumerCount(run)) + " changed") != 0))
    fail("command line: diff --stat", run.gen, "exit " + std::to_string(diff.status) + ": " + diff.out);

  const std::vector<ReshardReport> all = planProgramReshards(*run.loaded.program, kCosts, noLine);
  const bool allPlanned = std::all_of(all.begin(), all.end(), [](const ReshardReport& r) { return r.plan != nullptr; });
  CommandResult plan = runTool(tool, dir, "plan --apply in.ir");
  if (plan.status != (allPlanned ? 0 : 1)) fail("command line: plan --apply", run.gen, plan.err);
  CommandResult ran = runTool(tool, dir, "run --apply in.ir");
  const std::string summary = std::to_string(allPlanned ? all.size() : 0) + " passed, 0 failed\n";
  if (allPlanned && (ran.status != 0 || ran.out.size() < summary.size() ||
                     ran.out.compare(ran.out.size() - summary.size(), summary.size(), summary) != 0))
    fail("command line: run --apply", run.gen, "exit " + std::to_string(ran.status) + ":\n" + ran.out + ran.err);
  std::filesystem::remove_all(dir);
}

}  // namespace differential
