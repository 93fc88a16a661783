#include "passes/partition_pass.h"

#include <functional>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "passes/partition_worklist.h"
#include "passes/pass_runner.h"
#include "passes/prepared_reshards.h"
#include "passes/reshard_parts.h"
#include "support/op_names.h"
#include "syntax/type_text.h"

namespace reshardctl {

namespace {

using partition::PreparedReshards;
using partition::ReshardKey;
using partition::ReshardKeyHash;
using partition::ReshardParts;
using partition::ReshardText;

Operation* createCombine(Rewriter& rewriter, const std::vector<Value*>& elements,
                         std::string_view opRole) {
  Program& program = rewriter.program();
  std::vector<const Type*> types;
  for (const Value* element : elements) types.push_back(element ? element->type : nullptr);
  OpSpec spec;
  spec.name = kCombineOp;
  spec.attributes = program.strings().intern(partition::newOpAttributes(program, "", nullptr, elements, opRole));
  spec.operands = elements;
  spec.resultTypes = {vectorType(program.types(), types)};
  return rewriter.create(spec);
}

// `src` moved onto `dst`'s mesh with its own layout: decompose_reshard_pass's
// intermediate (copy_dist_attr_with_new_member(new_process_mesh=...)).
TensorDistAttr onMesh(const TensorDistAttr& src, const ProcessMesh& mesh) {
  TensorDistAttr moved = src;
  moved.mesh = mesh;
  return moved;
}

// The reshard op at the rewriter's insertion point. `spec` is the caller's,
// reused from one reshard to the next: its vectors allocate only once.
Operation* buildReshard(Rewriter& rewriter, Value* input, const ReshardParts& parts, OpSpec& spec) {
  spec.name = kReshardOp;
  spec.attributes = parts.attributes;
  spec.distAttr = parts.distAttr;
  spec.operands.assign(1, input);
  spec.resultTypes.assign(1, parts.resultType);
  Operation* reshard = rewriter.create(spec);
  rewriter.setDist(reshard->result(0), &reshard->distAttr()->results[0].tensor);
  return reshard;
}

class Partitioner {
 public:
  Partitioner(Program& program, DiagnosticEngine& diagnostics, const PartitionOptions& options)
      : rewriter_(program), diagnostics_(diagnostics), options_(options) {}

  // The ops are found first (on the run's threads), then rewritten in order.
  // An op an earlier rewrite erased (an old combine) is gone from its block
  // and skipped, as the walk of the block would skip it.
  // Where each op's reshards are known before any rewrite (no switch that
  // changes later ops, no split that makes new layouts), their texts are
  // written first, on the run's threads too.
  PartitionResult run() {
    const bool mayChange = mayChangeLaterOps();
    const std::vector<Operation*> ops = opsToVisit(rewriter_.program(), [&](const Operation& candidate) {
      return candidate.distAttr() && (mayChange || needsRewrite(candidate));
    });
    if (!mayChange && !options_.splitCrossMesh) prepared_.prepare(rewriter_.program(), ops);
    for (Operation* op : ops)
      if (op->parentBlock()) partitionOp(op);
    return std::move(result_);
  }

 private:
  struct Shared {  // --dedupe: a reshard of `source` to `layout`, reusable
    Value* source;
    const TensorDistAttr* layout;
    Value* reshard;
  };

  void partitionOp(Operation* op) {
    partitionOperands(op);
    if (options_.reshardResults) partitionResults(op);
  }

  // Whether rewriting one op can change what a later op needs: a result
  // retyped to its entry's layout (reshardResults), or a value's process ids
  // learnt from a folded reshard (a mesh known only by its shape equals any
  // of that shape, so learning its ids can make it differ from an entry).
  // Then every op with an op_dist_attr is visited and decides as it comes.
  bool mayChangeLaterOps() const { return options_.reshardResults || options_.fold; }

  // Whether partitionOperands would change anything: an operand whose layout
  // is not its entry's, or a tensor list (a new combine is always made).
  // Read on several threads before any rewrite.
  static bool needsRewrite(const Operation& op) {
    const OpDistAttr& attr = *op.distAttr();
    for (size_t i = 0; i < op.numOperands() && i < attr.operands.size(); ++i) {
      const DistEntry& entry = attr.operands[i];
      const Value* value = op.operandValue(i);
      if (entry.kind == DistEntry::Kind::List) return true;
      if (entry.kind == DistEntry::Kind::Tensor && partition::layoutDiffers(value, entry.tensor)) return true;
    }
    return false;
  }

  size_t entryLocation(const Operation& op, const DistEntry& entry) const {
    return op.distAttrLocation() + entry.textOffset;
  }

  // zip(operands, entries): extra operands or entries are left alone.
  void partitionOperands(Operation* op) {
    const OpDistAttr& attr = *op->distAttr();
    std::vector<Value*>& replaced = replaced_;
    replaced.clear();
    for (size_t i = 0; i < op->numOperands() && i < attr.operands.size(); ++i) {
      const DistEntry& entry = attr.operands[i];
      Value* old = op->operandValue(i);
      Value* now = old;
      if (entry.kind == DistEntry::Kind::Tensor)
        now = reshardValue(op, old, entry.tensor, entryLocation(*op, entry));
      else if (entry.kind == DistEntry::Kind::List)
        now = reshardList(op, old, entry);
      if (now == old || !now) continue;
      rewriter_.setOperand(op, i, now);
      replaced.push_back(old);
    }
    if (!replaced.empty()) eraseUnused(replaced);
  }

  // The value `op` should use instead of `value` to see it as `dst`.
  Value* reshardValue(Operation* op, Value* value, const TensorDistAttr& dst, size_t location) {
    if (!partition::layoutDiffers(value, dst)) return value;
    Value* source = options_.fold ? foldSource(value) : value;
    if (source != value && *source->dist == dst) return source;
    if (Value* shared = findShared(source, dst, op->parentBlock())) return shared;
    rewriter_.setInsertionPoint(op);
    Value* intermediate = source;
    if (needsSplit(*source->dist, dst)) {
      const TensorDistAttr* moved = rewriter_.program().keepTensorDistAttr(onMesh(*source->dist, dst.mesh));
      intermediate = reshardTo(op, source, *moved, location);
      if (!intermediate) return nullptr;
      remember(source, intermediate);
    }
    Value* reshard = reshardTo(op, intermediate, dst, location);
    if (reshard) remember(source, reshard);
    return reshard;
  }

  // `dst` is kept by the program (an entry of a kept OpDistAttr, or
  // keepTensorDistAttr's): the memo of parts is keyed by its address.
  Value* reshardTo(Operation* op, Value* input, const TensorDistAttr& dst, size_t location) {
    std::optional<ReshardParts> parts = memoizedParts(op, input, dst, location);
    if (!parts) {
      result_.ok = false;
      return nullptr;
    }
    Operation* reshard = buildReshard(rewriter_, input, *parts, reshardSpec_);
    result_.inserted.push_back(reshard);
    return reshard->result(0);
  }

  // A large program inserts many alike reshards: each distinct one's text is
  // written once (writing it is most of the pass's time otherwise), here or
  // ahead on the run's threads (prepared_).
  std::optional<ReshardParts> memoizedParts(Operation* op, Value* input, const TensorDistAttr& dst,
                                            size_t location) {
    Program& program = rewriter_.program();
    const ReshardKey key = partition::reshardKey(program, *op, input, dst);
    if (auto found = memo_.find(key); found != memo_.end()) return found->second;
    std::optional<ReshardParts> parts;
    if (std::optional<ReshardText> text = prepared_.take(key)) parts = partition::keepReshard(program, std::move(*text));
    else parts = partition::reshardParts(program, key, input, dst, location, diagnostics_);
    if (parts) memo_.emplace(key, *parts);
    return parts;
  }

  // decompose_reshard_pass splits when the meshes differ, have the same
  // number of dims, and the placements differ too.
  bool needsSplit(const TensorDistAttr& src, const TensorDistAttr& dst) const {
    if (!options_.splitCrossMesh || src.mesh == dst.mesh) return false;
    if (src.mesh.ndim() != dst.mesh.ndim()) return false;
    return !(onMesh(src, dst.mesh) == dst);
  }

  // v5 fold: start from the producing reshard's input, unless that reshard
  // goes between meshes of different ndim (latest: "skil global to sub mesh").
  Value* foldSource(Value* value) {
    const Operation* producer = value->definingOp;
    if (!producer || producer->name() != kReshardOp || producer->numOperands() != 1) return value;
    Value* input = producer->operandValue(0);
    if (!input || !input->dist) return value;
    if (input->dist->mesh.ndim() != value->dist->mesh.ndim()) return value;
    learnIdsFromReshard(*producer, *input);
    return input;
  }

  // A generation-A type names only its mesh shape; where the defining op does
  // not give the ids either, the value's reshard does: ReshardOp::Build copies
  // the input's dist attr into operand(0), whose entry prints no mesh_shape
  // when it is the op mesh -- the ids are then the op mesh's. The new reshard
  // folded onto this input needs them to build its merged mesh.
  void learnIdsFromReshard(const Operation& reshard, Value& input) {
    const OpDistAttr* attr = reshard.distAttr();
    if (input.dist->mesh.idsKnown || !attr || attr->operands.empty()) return;
    const DistEntry& entry = attr->operands.front();
    if (entry.kind == DistEntry::Kind::Tensor && entry.tensor.mesh.idsKnown && entry.tensor == *input.dist)
      rewriter_.setDist(&input, &entry.tensor);
  }

  // A shared reshard is reusable where its block encloses `block` (the
  // reshard was placed before an earlier op of that block, so it dominates).
  // Its layout must be the very one asked for: a mesh known only by its shape
  // matches only another such (it may be any mesh of that shape, so a second
  // reading would not see the shared result as what a known mesh asked for).
  Value* findShared(Value* source, const TensorDistAttr& dst, const Block* block) const {
    if (!options_.dedupe) return nullptr;
    auto found = shared_.find(source);
    if (found == shared_.end()) return nullptr;
    for (const Shared& shared : found->second) {
      if (!(*shared.layout == dst)) continue;
      if (shared.layout->mesh.idsKnown != dst.mesh.idsKnown) continue;
      const Block* home = shared.reshard->definingOp->parentBlock();
      for (const Block* b = block; b; b = b->parentOp() ? b->parentOp()->parentBlock() : nullptr)
        if (b == home) return shared.reshard;
    }
    return nullptr;
  }

  void remember(Value* source, Value* reshard) {
    if (options_.dedupe) shared_[source].push_back(Shared{source, reshard->dist, reshard});
  }

  // v5 reshard_combine_value: each element resharded, then a new combine
  // right before the op (always, even when nothing changed).
  Value* reshardList(Operation* op, Value* list, const DistEntry& entry) {
    size_t location = entryLocation(*op, entry);
    Operation* combine = list ? list->definingOp : nullptr;
    if (!combine || combine->name() != kCombineOp) {
      diagnostics_.error(location, 1, "a tensor-list entry needs its operand to be made by builtin.combine");
      result_.ok = false;
      return nullptr;
    }
    if (combine->numOperands() != entry.list.size()) {
      diagnostics_.error(location, 1,
                         fmt::format("the tensor-list entry has {} element(s) but builtin.combine has {} operand(s)",
                                     entry.list.size(), combine->numOperands()));
      result_.ok = false;
      return nullptr;
    }
    std::vector<Value*> elements;
    for (size_t k = 0; k < combine->numOperands(); ++k) {
      Value* element = combine->operandValue(k);
      Value* now = reshardValue(op, element, entry.list[k], location);
      if (!now) return nullptr;
      elements.push_back(now);
    }
    rewriter_.setInsertionPoint(op);
    Operation* created = createCombine(rewriter_, elements, partition::opRoleOf(rewriter_.program(), *op));
    result_.combines.push_back(created);
    return created->result(0);
  }

  // Old combines left unused always go (Paddle erases the unused producer);
  // with --fold, so do reshards left unused. A combine goes before the
  // reshards that fed it, so repeat until nothing changes.
  void eraseUnused(std::vector<Value*>& candidates) {
    for (bool changed = true; changed;) {
      changed = false;
      for (Value*& value : candidates) {
        if (!value || !value->useEmpty() || !value->definingOp) continue;
        Operation* producer = value->definingOp;
        bool erasable = producer->name() == kCombineOp || (options_.fold && producer->name() == kReshardOp);
        if (!erasable || producer->numResults() != 1) continue;
        value = nullptr;  // before the push_back below moves the vector
        for (size_t i = 0; i < producer->numOperands(); ++i)
          candidates.push_back(producer->operandValue(i));
        rewriter_.eraseOp(producer);
        ++result_.erased;
        changed = true;
        break;  // candidates grew: restart the walk
      }
    }
  }

  // v4 result handling. Each reshard goes right after the op, so several
  // come out in reverse result order (docs/passes.md, "The switches").
  void partitionResults(Operation* op) {
    const OpDistAttr& attr = *op->distAttr();
    Program& program = rewriter_.program();
    for (size_t k = 0; k < op->numResults() && k < attr.results.size(); ++k) {
      const DistEntry& entry = attr.results[k];
      Value* value = op->result(k);
      if (entry.kind != DistEntry::Kind::Tensor || !value->type || !value->dist) continue;
      if (*value->dist == entry.tensor) continue;
      const TensorDistAttr& old = *value->dist;  // kept, so it stays valid below
      rewriter_.retype(value, distTensorType(program.types(), value->type, entry.tensor, program.distStyle()),
                       &entry.tensor);
      rewriter_.setInsertionPointAfter(op);
      Value* back = reshardTo(op, value, old, entryLocation(*op, entry));
      if (back) rewriter_.replaceAllUsesExcept(value, back, back->definingOp);
    }
  }

  Rewriter rewriter_;
  DiagnosticEngine& diagnostics_;
  PartitionOptions options_;
  PartitionResult result_;
  // --dedupe's reshards by source value: a lookup sees only that value's.
  std::unordered_map<const Value*, std::vector<Shared>> shared_;
  std::unordered_map<ReshardKey, ReshardParts, ReshardKeyHash> memo_;
  PreparedReshards prepared_;
  OpSpec reshardSpec_;  // buildReshard's, reused
  std::vector<Value*> replaced_;  // partitionOperands's, reused
};

}  // namespace

PartitionResult applyPartitionPass(Program& program, DiagnosticEngine& diagnostics,
                                   const PartitionOptions& options) {
  return runPass("partition", program,
                 [&](Program& target) { return Partitioner(target, diagnostics, options).run(); });
}

}  // namespace reshardctl
