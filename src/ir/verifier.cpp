#include "ir/verifier.h"

#include <fmt/format.h>

#include "support/text.h"

namespace reshardctl {

namespace {

// A tensor entry must map every dim of the tensor it describes.
void checkEntryRank(const Operation& op, const DistEntry& entry, const Type* type, const char* kind,
                    size_t index, DiagnosticEngine& diagnostics) {
  if (entry.kind != DistEntry::Kind::Tensor || !type || type == pendingType() || !type->isTensor())
    return;
  size_t mapped = entry.tensor.dimsMapping.size();
  if (mapped == type->rank()) return;
  diagnostics.error(op.distAttrLocation() + entry.textOffset, 1,
                    fmt::format("{}({}) has a dims_mapping of {}, but the {} has rank {}", kind,
                                index, plural(mapped, "entry", "entries"), kind, type->rank()));
}

void verifyOp(const Operation& op, DiagnosticEngine& diagnostics) {
  const OpDistAttr* attr = op.distAttr();
  if (!attr) return;
  for (size_t i = 0; i < attr->operands.size() && i < op.numOperands(); ++i) {
    const Value* value = op.operandValue(i);
    checkEntryRank(op, attr->operands[i], value ? value->type : nullptr, "operand", i, diagnostics);
  }
  for (size_t i = 0; i < attr->results.size() && i < op.numResults(); ++i)
    checkEntryRank(op, attr->results[i], op.result(i)->type, "result", i, diagnostics);
}

}  // namespace

bool verifyProgram(const Program& program, DiagnosticEngine& diagnostics) {
  size_t before = diagnostics.errorCount();
  walkOps(*program.body(), [&](const Operation* op) { verifyOp(*op, diagnostics); });
  return diagnostics.errorCount() == before;
}

}  // namespace reshardctl
