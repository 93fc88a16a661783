#include "partition_pass.h"

#include <fmt/format.h>

#include "dist_attr_text.h"

namespace reshardctl {

namespace {

std::string meshText(const ProcessMesh& mesh) {
  return fmt::format("[{}]", fmt::join(mesh.shape, ","));
}

// The entry an operand must match, or nullptr when it is not checked: no
// entry (zip stops at the shorter list), a {null} entry, a tensor-list entry,
// or an operand that is null or not distributed.
const TensorDistAttr* requiredLayout(const Operation& op, size_t index) {
  const OpDistAttr* attr = op.distAttr();
  if (!attr || index >= attr->operands.size()) return nullptr;
  const DistEntry& entry = attr->operands[index];
  if (entry.kind != DistEntry::Kind::Tensor) return nullptr;
  const Value* value = op.operandValue(index);
  if (!value || !value->dist) return nullptr;
  return &entry.tensor;
}

void partitionBlock(Block& block, Rewriter& rewriter, PartitionResult& result,
                    DiagnosticEngine& diagnostics) {
  for (Operation* op : block) {  // the iterator has read op->next() already
    for (Block* region : op->regions()) partitionBlock(*region, rewriter, result, diagnostics);
    for (size_t i = 0; i < op->numOperands(); ++i) {
      const TensorDistAttr* required = requiredLayout(*op, i);
      Value* value = op->operandValue(i);
      if (!required || *value->dist == *required) continue;
      rewriter.setInsertionPoint(op);
      size_t where = op->distAttrLocation() + op->distAttr()->operands[i].textOffset;
      Operation* reshard = createReshard(rewriter, value, *required, where, diagnostics);
      if (!reshard) {
        result.ok = false;
        continue;
      }
      rewriter.setOperand(op, i, reshard->result(0));
      result.inserted.push_back(reshard);
    }
  }
}

}  // namespace

Operation* createReshard(Rewriter& rewriter, Value* input, const TensorDistAttr& dst,
                         size_t location, DiagnosticEngine& diagnostics) {
  Program& program = rewriter.program();
  const TensorDistAttr& src = *input->dist;
  ProcessMesh opMesh = mergeMeshes(src.mesh, dst.mesh);
  if (!opMesh.idsKnown) {
    diagnostics.error(location, 1,
                      fmt::format("cannot build the reshard: moving from mesh {} to mesh {} needs "
                                  "both meshes' process ids, and one is known only by its shape",
                                  meshText(src.mesh), meshText(dst.mesh)));
    return nullptr;
  }
  OpDistAttr attr;
  attr.mesh = opMesh;
  attr.operands.push_back(DistEntry{DistEntry::Kind::Tensor, src, {}, 0});
  attr.results.push_back(DistEntry{DistEntry::Kind::Tensor, dst, {}, 0});
  std::string attributes = "{op_dist_attr:" + writeOpDistAttr(attr, program.generation()) + "}";

  OpSpec spec;
  spec.name = "dist_op.reshard";
  spec.attributes = program.strings().intern(attributes);
  spec.distAttr = program.keepOpDistAttr(std::move(attr));
  spec.operands = {input};
  spec.resultTypes = {program.types().withDist(input->type, dst, program.generation())};
  Operation* reshard = rewriter.create(spec);
  reshard->result(0)->dist = &reshard->distAttr()->results[0].tensor;
  return reshard;
}

PartitionResult applyPartitionPass(Program& program, DiagnosticEngine& diagnostics) {
  Rewriter rewriter(program);
  PartitionResult result;
  partitionBlock(*program.body(), rewriter, result, diagnostics);
  return result;
}

}  // namespace reshardctl
