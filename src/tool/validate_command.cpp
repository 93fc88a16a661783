// `reshardctl validate`: for each input, read (→ partition pass with --apply)
// → run the whole program serially and on every rank (interp/validation.h) →
// a diagnostic at each op whose distributed result is not the serial one, the
// ops that could not be simulated, and a summary (or all of it as one JSON
// document, schema/validate.schema.json).
#include <cstdio>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "exec/execution_backend.h"
#include "interp/validation.h"
#include "interp/validation_report.h"
#include "passes/partition_pass.h"
#include "report/diagnostic_formats.h"
#include "report/json_export.h"
#include "report/result_json.h"
#include "reshard/mesh_coords.h"
#include "syntax/printer.h"
#include "tool/commands.h"
#include "tool/program_io.h"

namespace reshardctl {

namespace {

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
  if (options.backend == "cpu") return makeCpuBackend();
  std::set<int64_t> ranks;
  walkOps(*program.body(), [&](const Operation* op) {
    if (op->distAttr())
      for (int64_t id : processIds(op->distAttr()->mesh)) ranks.insert(id);
  });
  return makeNcclBackend({ranks.begin(), ranks.end()}, error);
}

void reportDivergences(const ValidationOutcome& outcome, DiagnosticEngine& diagnostics) {
  for (const Divergence& d : outcome.divergences) {
    const size_t offset = d.op ? d.op->location() : 0;
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
Json outcomeJson(const ValidationOutcome& outcome, const LoadedProgram& loaded) {
  Json notSimulated = Json::array();
  for (const NotSimulated& n : outcome.notSimulated)
    notSimulated.push_back({{"op", n.op}, {"count", n.count}, {"reason", n.reason.empty() ? Json(nullptr) : Json(n.reason)}});
  Json divergences = Json::array();
  for (const Divergence& d : outcome.divergences) divergences.push_back(divergenceJson(d, *loaded.source));
  return {{"file", loaded.source->name()},
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
}

// The lines of one input's text report: the ops not simulated, the summary.
std::vector<std::string> textLines(const ValidationOutcome& outcome) {
  std::vector<std::string> lines;
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
  InputValidator(const ValidateCommandOptions& options, Reporter& reporter, ValidateRun& run)
      : options_(options), reporter_(reporter), run_(run) {}

  InputOutcome operator()(const InputProgram& input) {
    DiagnosticEngine diagnostics = reporter_.engine();
    LoadedProgram loaded = loadProgram(input, diagnostics);  // outlives the report of its diagnostics
    std::optional<ValidationOutcome> outcome;
    const int status = loaded.program ? validate(input, loaded, diagnostics, &outcome) : loaded.failure;
    reporter_.report(diagnostics);  // the divergences first, then the summary
    if (!outcome) {
      ++run_.failed;
      if (input.oneOfSeveral) run_.text += input.name + ": failed\n";
      return {status, ""};
    }
    ++(outcome->divergences.empty() ? run_.matching : run_.diverging);
    if (options_.json) run_.files.push_back(outcomeJson(*outcome, loaded));
    for (const std::string& line : textLines(*outcome))
      run_.text += (input.oneOfSeveral ? input.name + ": " : "") + line + "\n";
    return {status, ""};
  }

 private:
  // Sets *outcome when the program could be run; returns the input's status.
  int validate(const InputProgram& input, LoadedProgram& loaded, DiagnosticEngine& diagnostics,
               std::optional<ValidationOutcome>* outcome) {
    const InputNames names(*loaded.program);
    if (options_.apply && !applyPartitionPass(*loaded.program, diagnostics, options_.pass).ok) return kExitBadInput;
    std::string error;
    std::unique_ptr<ExecutionBackend> backend = makeBackend(options_, *loaded.program, &error);
    if (!backend) {
      diagnostics.error(fmt::format("the {} backend is not available: {}", options_.backend, error));
      return kExitUsage;
    }
    ValidateOptions validate;
    validate.seed = options_.seed;
    validate.dynamicDim = options_.dynamicDim;
    validate.rtol = options_.rtol;
    validate.atol = options_.atol;
    validate.all = options_.all;
    validate.nameOf = [&names](const Value* value) { return names(value); };
    try {
      *outcome = validateProgram(*loaded.program, *backend, validate);
    } catch (const BackendError& e) {
      diagnostics.error(fmt::format("the {} backend failed on {}: {}", backend->name(), input.name, e.what()));
      return kExitUsage;
    } catch (const std::bad_alloc&) {
      throw;  // reported in one place, runCli
    } catch (const std::exception& e) {  // a bug: say so rather than crash
      diagnostics.error(fmt::format("validate could not go on with {}: {}", input.name, e.what()));
      return kExitUsage;
    }
    reportDivergences(**outcome, diagnostics);
    if (!(*outcome)->divergences.empty()) return kExitBadInput;
    if (options_.strict && (*outcome)->notSimulatedOps > 0) return kExitUsage;
    return kExitOk;
  }

  const ValidateCommandOptions& options_;
  Reporter& reporter_;
  ValidateRun& run_;
};

}  // namespace

int runValidate(const ValidateCommandOptions& options, Reporter& reporter) {
  std::vector<std::string> files;
  if (!expandInputs(options.inputs, reporter, &files)) return kExitUsage;
  ValidateRun run;
  InputValidator validator(options, reporter, run);
  // The report is the command's result: its lines go to the output, not
  // forEachFile's summaries.
  const InputRun inputs = forEachFile(files, options.inputs, reporter, standardError(), std::ref(validator));
  std::string report = run.text;
  if (inputs.programs > 1)
    report += fmt::format("validated {}: {} match{}, {} diverge{}, {} failed\n",
                          inputs.programs == inputs.files
                              ? fmt::format("{} files", inputs.files)
                              : fmt::format("{} programs of {} file{}", inputs.programs, inputs.files,
                                            inputs.files == 1 ? "" : "s"),
                          run.matching, run.matching == 1 ? "es" : "", run.diverging, run.diverging == 1 ? "s" : "",
                          run.failed);
  if (options.json) {
    Json document = documentJson("validate");
    document["backend"] = options.backend;
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

}  // namespace reshardctl
