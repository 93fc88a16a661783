#include "lower/dist_to_dense.h"

#include <functional>
#include <string>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "ir/rewriter.h"
#include "lower/local_shape.h"
#include "lower/lowered_ops.h"
#include "support/op_names.h"
#include "syntax/attribute_dictionary.h"
#include "syntax/type_text.h"

namespace reshardctl {

namespace {

class DenseLowering {
 public:
  DenseLowering(Program& program, int64_t rank, const ProcessGroups& groups)
      : rewriter_(program), rank_(rank), groups_(groups) {}

  DenseResult run() {
    lowerBlock(*rewriter_.program().body());
    return result_;
  }

 private:
  const Type* localType(const Type* type, const TensorDistAttr* dist) {
    if (!type || type == pendingType()) return type;
    if (type->kind == TypeKind::Vector) {
      std::vector<const Type*> elements;
      for (const Type* element : type->elements) elements.push_back(localType(element, nullptr));
      return vectorType(rewriter_.program().types(), elements);
    }
    if (!type->isDist()) return type;
    const std::vector<int64_t> dims = localShape(type->dims, dist ? *dist : type->dist, rank_);
    std::string text = rewriter_.program().generation() == DistGeneration::E ? "tensor<" : "builtin.tensor<";
    for (int64_t dim : dims) text += fmt::format("{}x", dim);
    return readType(rewriter_.program().types(), text + std::string(type->dtype) + ">", 0);
  }

  // Values of one type and layout share their local type (a program repeats
  // a few hundred of them), so the type text is built once per pair.
  const Type* cachedLocalType(const Type* type, const TensorDistAttr* dist) {
    auto [it, inserted] = localTypes_.try_emplace({type, dist}, nullptr);
    if (inserted) it->second = localType(type, dist);
    return it->second;
  }

  void retype(Value* value) {
    const Type* local = cachedLocalType(value->type, value->dist);
    if (local == value->type && !value->dist) return;
    rewriter_.retype(value, local, nullptr);
    ++result_.retyped;
  }

  // Dumps repeat attribute dictionaries; each distinct one is rewritten once
  // (pd_op.data's depends on its type too, so it is not shared).
  void dropDistAttr(Operation* op) {
    const bool shared = op->name() != "pd_op.data";
    if (shared) {
      auto found = withoutDist_.find(op->attributes());
      if (found != withoutDist_.end()) return rewriter_.setAttributes(op, found->second, nullptr);
    }
    const std::string_view before = op->attributes();
    rewriteAttributes(op);
    if (shared) withoutDist_.emplace(before, op->attributes());
  }

  void rewriteAttributes(Operation* op) {
    std::vector<std::pair<std::string_view, std::string>> kept;
    for (const AttributeEntry& entry : splitAttributes(op->attributes())) {
      if (entry.key == "op_dist_attr") continue;
      std::string value(entry.value);
      if (entry.key == "shape" && op->name() == "pd_op.data" && op->numResults() == 1 && op->result(0)->type &&
          op->result(0)->type->isTensor())
        value = fmt::format("(pd_op.IntArray)[{}]", fmt::join(op->result(0)->type->dims, ","));
      kept.emplace_back(entry.key, std::move(value));
    }
    if (rewriter_.program().generation() >= DistGeneration::D && op->distAttr()->chunkId)
      kept.emplace_back("chunk_id", fmt::format("(Int64){}", *op->distAttr()->chunkId));
    rewriter_.setAttributes(op, rewriter_.program().strings().intern(writeAttributes(std::move(kept))), nullptr);
  }

  // dist2dense rewrites a reshape's full_int_array shape to the local dims.
  void localizeReshapeShape(const Operation& op) {
    if (op.name() != "pd_op.reshape" || op.numOperands() < 2 || !op.result(0)->type || !op.result(0)->type->isTensor())
      return;
    Operation* shape = op.operandValue(1) ? op.operandValue(1)->definingOp : nullptr;
    if (!shape || shape->name() != "pd_op.full_int_array") return;
    std::string value = "[";
    for (int64_t dim : op.result(0)->type->dims) value += fmt::format("{}(Int64){}", value.size() > 1 ? "," : "", dim);
    std::vector<std::pair<std::string_view, std::string>> entries;
    for (const AttributeEntry& entry : splitAttributes(shape->attributes()))
      entries.emplace_back(entry.key, entry.key == "value" ? value + "]" : std::string(entry.value));
    rewriter_.setAttributes(shape, rewriter_.program().strings().intern(writeAttributes(std::move(entries))), nullptr);
  }

  // remove_unuseful_comm_op_pass: a collective on a group of one rank is
  // the identity. Paddle 3.0's list: all_gather and reduce_scatter, and
  // all_reduce of SUM or MAX; 3.0-beta's (pir_pass.py, mid 2024):
  // c_allreduce_sum_ and c_allgather. Each release's functions emit only its
  // own spellings, so one check serves both.
  bool uselessComm(const Operation& op) const {
    if (op.numOperands() != 1 || op.numResults() != 1) return false;
    const std::string_view attrs = op.attributes();
    if (op.name() == kAllGatherOp || op.name() == kReduceScatterOp)
      return findAttribute(attrs, "nranks") == std::optional<std::string_view>("(Int32)1");
    const bool beta = op.name() == kCAllReduceSumOp || op.name() == kCAllGatherOp;
    if (op.name() != kAllReduceOp && !beta) return false;
    const auto reduce = findAttribute(attrs, "reduce_type");
    const auto ring = findAttribute(attrs, "ring_id");
    if (!ring || (!beta && (!reduce || (*reduce != "(Int32)0" && *reduce != "(Int32)1")))) return false;
    const int64_t id = std::stoll(std::string(ring->substr(ring->find(')') + 1)));
    return groups_.sizeOf(id) == 1;
  }

  void lowerBlock(Block& block) {
    for (Value* argument : block.arguments()) retype(argument);
    for (Operation* op : block) {
      for (size_t i = 0; i < op->numResults(); ++i) retype(op->result(i));
      if (op->distAttr()) dropDistAttr(op);
      localizeReshapeShape(*op);
      for (Block* region : op->regions()) lowerBlock(*region);
      if (uselessComm(*op)) {
        rewriter_.replaceAllUsesWith(op->result(0), op->operandValue(0));
        rewriter_.eraseOp(op);
        ++result_.commRemoved;
      }
    }
  }

  struct PairHash {
    size_t operator()(const std::pair<const Type*, const TensorDistAttr*>& key) const {
      return std::hash<const void*>()(key.first) * 31 + std::hash<const void*>()(key.second);
    }
  };

  Rewriter rewriter_;
  int64_t rank_;
  const ProcessGroups& groups_;
  DenseResult result_;
  std::unordered_map<std::pair<const Type*, const TensorDistAttr*>, const Type*, PairHash> localTypes_;
  std::unordered_map<std::string_view, std::string_view> withoutDist_;  // attribute text, verbatim → rewritten
};

}  // namespace

DenseResult distToDense(Program& program, int64_t rank, const ProcessGroups& groups) {
  return DenseLowering(program, rank, groups).run();
}

}  // namespace reshardctl
