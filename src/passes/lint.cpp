#include "passes/lint.h"

#include <fmt/format.h>

#include "support/text.h"

namespace reshardctl {

namespace {

constexpr const char* kUnevenShards = "uneven-shards";
constexpr const char* kExtraEntry = "extra-entry";
constexpr const char* kDenseOperand = "dense-operand";
constexpr const char* kShapeOnlyMesh = "shape-only-mesh";

std::string listText(const std::vector<int64_t>& values) {
  return fmt::format("[{}]", fmt::join(values, ","));
}

class Linter {
 public:
  explicit Linter(DiagnosticEngine& diagnostics) : diagnostics_(diagnostics) {}

  void lintOp(const Operation& op) {
    for (size_t i = 0; i < op.numResults(); ++i) lintResult(op, i);
    const OpDistAttr* attr = op.distAttr();
    if (!attr) return;
    extraEntries(op, attr->operands, op.numOperands(), "operand");
    extraEntries(op, attr->results, op.numResults(), "result");
    for (size_t i = 0; i < attr->operands.size(); ++i) shapeOnlyEntry(op, attr->operands[i], "operand", i);
    for (size_t i = 0; i < attr->results.size(); ++i) shapeOnlyEntry(op, attr->results[i], "result", i);
    for (size_t i = 0; i < op.numOperands() && i < attr->operands.size(); ++i)
      if (!attr->operands[i].isNull()) denseOperand(op, i);
  }

  size_t count() const { return count_; }

 private:
  void warn(const char* name, size_t offset, std::string message) {
    diagnostics_.warning(name, offset, 1, std::move(message));
    ++count_;
  }

  void lintResult(const Operation& op, size_t index) {
    const Value* value = op.result(index);
    if (!value->type || !value->dist || !value->type->isDist()) return;
    const TensorDistAttr& dist = *value->dist;
    if (!dist.mesh.idsKnown)
      warn(kShapeOnlyMesh, op.location(), fmt::format("result {} lives on a mesh known only by its shape {}: its "
                                      "process ids cannot be told",
                                      index, listText(dist.mesh.shape)));
    unevenShards(op, index, *value->type, dist);
  }

  // Paddle splits uneven dims with a ceil split (Python) or pads (phi); the
  // static pipeline's S→R raises "unbalanced split is not implemented".
  void unevenShards(const Operation& op, size_t index, const Type& type, const TensorDistAttr& dist) {
    for (size_t d = 0; d < dist.dimsMapping.size() && d < type.dims.size(); ++d) {
      int64_t meshDim = dist.dimsMapping[d];
      if (meshDim < 0 || type.dims[d] < 0 || static_cast<size_t>(meshDim) >= dist.mesh.shape.size()) continue;
      int64_t parts = dist.mesh.shape[static_cast<size_t>(meshDim)];
      if (type.dims[d] % parts == 0) continue;
      warn(kUnevenShards, op.location(), fmt::format("result {}: dim {} of size {} is split over mesh dim {} of size "
                                      "{}, which does not divide it (uneven shards)",
                                      index, d, type.dims[d], meshDim, parts));
    }
  }

  void extraEntries(const Operation& op, const std::vector<DistEntry>& entries, size_t count,
                    const char* kind) {
    for (size_t i = count; i < entries.size(); ++i)
      warn(kExtraEntry, op.distAttrLocation() + entries[i].textOffset,
           fmt::format("{}({}) has no {}: the op has {}", kind, i, kind, plural(count, kind)));
  }

  void shapeOnlyEntry(const Operation& op, const DistEntry& entry, const char* kind, size_t index) {
    bool shapeOnly = entry.kind == DistEntry::Kind::Tensor && !entry.tensor.mesh.idsKnown;
    for (const TensorDistAttr& element : entry.list) shapeOnly |= !element.mesh.idsKnown;
    if (!shapeOnly) return;
    warn(kShapeOnlyMesh, op.distAttrLocation() + entry.textOffset,
         fmt::format("{}({}) names a mesh only by its shape, not the op's mesh: its process ids "
                     "cannot be told",
                     kind, index));
  }

  // Only an operand the op_dist_attr names a layout for: one without an entry
  // wants none, as dist_op.shard_tensor's dense input (ShardTensorOp::Build
  // gives its op_dist_attr a result entry only; PR #62718's dump).
  void denseOperand(const Operation& op, size_t index) {
    const Value* value = op.operandValue(index);
    if (!value || !value->type || value->type == pendingType() || value->type->kind != TypeKind::DenseTensor)
      return;
    warn(kDenseOperand, op.location(), fmt::format("operand {} is a dense tensor ({}) feeding an op with an "
                                    "op_dist_attr; it is never resharded",
                                    index, value->type->text));
  }

  DiagnosticEngine& diagnostics_;
  size_t count_ = 0;
};

}  // namespace

const std::vector<LintWarning>& lintWarnings() {
  static const std::vector<LintWarning> warnings = {
      {kUnevenShards, "a tensor dim is split over a mesh dim that does not divide it"},
      {kExtraEntry, "an operand(i) or result(i) entry beyond the op's operands or results"},
      {kDenseOperand, "a dense tensor feeds an op whose op_dist_attr names a layout for it (it is never resharded)"},
      {kShapeOnlyMesh, "a mesh known only by its shape: its process ids cannot be told"},
  };
  return warnings;
}

size_t lintProgram(const Program& program, DiagnosticEngine& diagnostics) {
  Linter linter(diagnostics);
  walkOps(*program.body(), [&](const Operation* op) { linter.lintOp(*op); });
  return linter.count();
}

}  // namespace reshardctl
