// `reshardctl validate`: read (→ partition pass with --apply) → run the whole
// program serially and on every rank (interp/validation.h) → a diagnostic at
// each op whose distributed result is not the serial one, the ops that could
// not be simulated, and a summary (or all of it as JSON).
#include <cstdio>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "exec/execution_backend.h"
#include "interp/validation.h"
#include "interp/validation_report.h"
#include "passes/partition_pass.h"
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
    if (offset != 0) diagnostics.error(offset, 1, d.message);
    else diagnostics.error(d.message);
  }
}

std::string textReport(const ValidationOutcome& outcome) {
  std::string text;
  if (std::string line = notSimulatedLine(outcome); !line.empty()) text += line + "\n";
  return text + summaryLine(outcome) + "\n";
}

}  // namespace

int runValidate(const ValidateCommandOptions& options) {
  DiagnosticEngine diagnostics;
  LoadedProgram loaded = loadProgram(options.input, diagnostics, options.program);
  if (!loaded.program) {
    diagnostics.flush(stderr);
    return loaded.failure;
  }
  const InputNames names(*loaded.program);
  if (options.apply && !applyPartitionPass(*loaded.program, diagnostics, options.pass).ok) {
    diagnostics.flush(stderr);
    return kExitBadInput;
  }
  std::string error;
  std::unique_ptr<ExecutionBackend> backend = makeBackend(options, *loaded.program, &error);
  if (!backend) {
    diagnostics.error(fmt::format("the {} backend is not available: {}", options.backend, error));
    diagnostics.flush(stderr);
    return kExitUsage;
  }
  ValidateOptions validate;
  validate.seed = options.seed;
  validate.dynamicDim = options.dynamicDim;
  validate.rtol = options.rtol;
  validate.atol = options.atol;
  validate.all = options.all;
  validate.nameOf = [&names](const Value* value) { return names(value); };
  ValidationOutcome outcome;
  try {
    outcome = validateProgram(*loaded.program, *backend, validate);
  } catch (const BackendError& e) {
    diagnostics.error(fmt::format("the {} backend failed: {}", backend->name(), e.what()));
    diagnostics.flush(stderr);
    return kExitUsage;
  } catch (const std::exception& e) {  // out of memory, or a bug: say so rather than crash
    diagnostics.error(fmt::format("validate could not go on: {}", e.what()));
    diagnostics.flush(stderr);
    return kExitUsage;
  }
  reportDivergences(outcome, diagnostics);
  diagnostics.flush(stderr);  // the divergences first, then the summary
  const std::string report =
      options.json ? validationJson(outcome, *loaded.source, options.seed, std::string(backend->name()))
                   : textReport(outcome);
  if (int status = writeTextOutput(report, options.output, diagnostics); status != kExitOk) {
    diagnostics.flush(stderr);
    return status;
  }
  if (!outcome.divergences.empty()) return kExitBadInput;
  if (options.strict && outcome.notSimulatedOps > 0) return kExitUsage;
  return kExitOk;
}

}  // namespace reshardctl
