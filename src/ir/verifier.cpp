#include "ir/verifier.h"

#include <atomic>

#include <fmt/format.h>

#include "ir/parallel/op_ranges.h"
#include "support/parallel_jobs.h"
#include "support/text.h"

namespace reshardctl {

namespace {

// A tensor entry must map every dim of the tensor it describes: calls
// mismatch(mapped dims, rank) when it does not.
template <typename Mismatch>
void checkEntryRank(const DistEntry& entry, const Type* type, Mismatch&& mismatch) {
  if (entry.kind != DistEntry::Kind::Tensor || !type || type == pendingType() || !type->isTensor())
    return;
  size_t mapped = entry.tensor.dimsMapping.size();
  if (mapped != type->rank()) mismatch(mapped, type->rank());
}

// Calls problem(entry, kind, index, mapped dims, rank) for each entry of
// `op`'s op_dist_attr that disagrees with its value: the one check, whether
// it is reported (verifyOp) or only counted (cleanInParallel).
template <typename Problem>
void forEachProblem(const Operation& op, Problem&& problem) {
  const OpDistAttr* attr = op.distAttr();
  if (!attr) return;
  for (size_t i = 0; i < attr->operands.size() && i < op.numOperands(); ++i) {
    const Value* value = op.operandValue(i);
    checkEntryRank(attr->operands[i], value ? value->type : nullptr,
                   [&](size_t mapped, size_t rank) { problem(attr->operands[i], "operand", i, mapped, rank); });
  }
  for (size_t i = 0; i < attr->results.size() && i < op.numResults(); ++i)
    checkEntryRank(attr->results[i], op.result(i)->type,
                   [&](size_t mapped, size_t rank) { problem(attr->results[i], "result", i, mapped, rank); });
}

void verifyOp(const Operation& op, DiagnosticEngine& diagnostics) {
  forEachProblem(op, [&](const DistEntry& entry, const char* kind, size_t index, size_t mapped, size_t rank) {
    diagnostics.error(op.distAttrLocation() + entry.textOffset, 1,
                      fmt::format("{}({}) has a dims_mapping of {}, but the {} has rank {}", kind, index,
                                  plural(mapped, "entry", "entries"), kind, rank));
  });
}

// Whether no op has a problem, checked on the run's threads. Only a clean
// answer is used: a program with problems is verified again serially, so
// its diagnostics come in the serial order.
bool cleanInParallel(const Program& program) {
  const ParallelWalk walk = planParallelWalk(program);
  std::atomic<bool> clean{true};
  runOnThreads(walk.ranges.size(), walk.jobs, [&](size_t i) {
    walkOps(walk.ranges[i], [&](const Operation* op) {
      forEachProblem(*op, [&](const DistEntry&, const char*, size_t, size_t, size_t) { clean = false; });
    });
  });
  return clean;
}

}  // namespace

bool verifyProgram(const Program& program, DiagnosticEngine& diagnostics) {
  if (cleanInParallel(program)) return true;
  size_t before = diagnostics.errorCount();
  walkOps(*program.body(), [&](const Operation* op) { verifyOp(*op, diagnostics); });
  return diagnostics.errorCount() == before;
}

}  // namespace reshardctl
