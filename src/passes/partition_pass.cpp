#include "passes/partition_pass.h"

#include <functional>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "passes/partition_worklist.h"
#include "passes/pass_runner.h"
#include "support/op_names.h"
#include "syntax/attribute_dictionary.h"
#include "syntax/dist_attr_text.h"
#include "syntax/type_text.h"

namespace reshardctl {

namespace {

std::string meshText(const ProcessMesh& mesh) {
  return fmt::format("[{}]", fmt::join(mesh.shape, ","));
}

// A value's stop_gradient as pir::Value::attribute reads it: the defining
// op's `stop_gradient` array at the result's index; true when there is none
// (block arguments, ops that do not print it).
bool stopGradient(const Value* value) {
  if (!value || !value->definingOp) return true;
  std::optional<std::string_view> array =
      findAttribute(value->definingOp->attributes(), "stop_gradient");
  if (!array) return true;
  return boolArrayElement(*array, value->index).value_or(true);
}

// PassStopGradientsDefaultly (pir/src/core/operation_utils / builder): the
// outputs stop gradients unless some input does not.
std::string stopGradientText(bool stop) { return stop ? "[true]" : "[false]"; }

std::string passStopGradients(const std::vector<Value*>& inputs) {
  for (const Value* input : inputs)
    if (!stopGradient(input)) return stopGradientText(false);
  return stopGradientText(true);
}

// Generation A never copies op_role, so its dumps skip the lookup.
std::string_view opRoleOf(const Program& program, const Operation& op) {
  if (program.generation() == DistGeneration::A) return {};
  return findAttribute(op.attributes(), "op_role").value_or(std::string_view());
}

// The attributes of a new op. Generation A (silverling/paddle-paddle @2ce6c02
// dist_op.cc ReShardOp::Build) gives a reshard only op_dist_attr. From the
// MergeMeshes version on, Build calls PassStopGradientsDefaultly, and the
// later passes copy op_role to inserted ops (docs/passes.md, "apply_partition_pass"), so C-E add
// `stop_gradient` and, when the consumer has one, its `op_role`.
// builtin.combine's Build has always called PassStopGradientsDefaultly.
std::string newOpAttributes(const Program& program, std::string opDistAttr, const Value* input,
                            const std::vector<Value*>& inputs, std::string_view opRole) {
  bool generationA = program.generation() == DistGeneration::A;
  std::vector<std::pair<std::string_view, std::string>> entries;
  if (!opDistAttr.empty()) entries.emplace_back("op_dist_attr", std::move(opDistAttr));
  if (generationA && input) return writeAttributes(std::move(entries));
  if (!generationA && !opRole.empty()) entries.emplace_back("op_role", std::string(opRole));
  entries.emplace_back("stop_gradient", input ? stopGradientText(stopGradient(input)) : passStopGradients(inputs));
  return writeAttributes(std::move(entries));
}

Operation* createCombine(Rewriter& rewriter, const std::vector<Value*>& elements,
                         std::string_view opRole) {
  Program& program = rewriter.program();
  std::vector<const Type*> types;
  for (const Value* element : elements) types.push_back(element ? element->type : nullptr);
  OpSpec spec;
  spec.name = kCombineOp;
  spec.attributes = program.strings().intern(newOpAttributes(program, "", nullptr, elements, opRole));
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

// What a `dist_op.reshard(input) -> dst` is made of, all but its operand, as
// ReshardOp::Build makes it: op mesh = the input's mesh when both meshes are
// equal, else the merged 1-D mesh; result type = input type with dst's
// distribution; text in the program's generation (newOpAttributes). `opRole`
// is the consumer's op_role value text, copied in generations C-E. Computed
// once for many alike reshards (Partitioner::memoizedParts).
struct ReshardParts {
  std::string_view attributes;           // interned in the program
  const OpDistAttr* distAttr = nullptr;  // kept by the program
  const Type* resultType = nullptr;
};

// nullopt (with a diagnostic at `location`) when the merged mesh cannot be
// known (a mesh given only by its shape).
std::optional<ReshardParts> reshardParts(Program& program, const Value* input, const TensorDistAttr& dst,
                                         size_t location, DiagnosticEngine& diagnostics,
                                         std::string_view opRole) {
  const TensorDistAttr& src = *input->dist;
  ProcessMesh opMesh = mergeMeshes(src.mesh, dst.mesh);
  if (!opMesh.idsKnown) {
    diagnostics.error(location, 1,
                      fmt::format("cannot build the reshard: moving from mesh {} to mesh {} needs "
                                  "both meshes' process ids, and one is known only by its shape",
                                  meshText(src.mesh), meshText(dst.mesh)));
    return std::nullopt;
  }
  OpDistAttr attr;
  attr.mesh = opMesh;
  attr.operands.push_back(DistEntry{DistEntry::Kind::Tensor, src, {}, 0});
  attr.results.push_back(DistEntry{DistEntry::Kind::Tensor, dst, {}, 0});
  std::string distText = writeOpDistAttr(attr, program.distStyle());
  ReshardParts parts;
  parts.attributes = program.strings().intern(newOpAttributes(program, std::move(distText), input, {}, opRole));
  parts.distAttr = program.keepOpDistAttr(std::move(attr));
  parts.resultType = distTensorType(program.types(), input->type, dst, program.distStyle());
  return parts;
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

// What decides a reshard's parts (ReshardParts): its input's distribution and
// type, the destination, and the two attributes copied from around it. The
// distributions are compared by identity: the pass passes only kept ones (the
// program's, which never change), so equal keys always build equal parts.
struct ReshardKey {
  const TensorDistAttr* source;
  const TensorDistAttr* destination;
  const Type* inputType;
  std::string_view opRole;
  bool stopGradient;
  bool operator==(const ReshardKey&) const = default;
};
struct ReshardKeyHash {
  size_t operator()(const ReshardKey& k) const {
    std::hash<const void*> pointer;
    size_t h = pointer(k.source);
    h = h * 31 + pointer(k.destination);
    h = h * 31 + pointer(k.inputType);
    h = h * 31 + std::hash<std::string_view>()(k.opRole);
    return h * 2 + k.stopGradient;
  }
};

class Partitioner {
 public:
  Partitioner(Program& program, DiagnosticEngine& diagnostics, const PartitionOptions& options)
      : rewriter_(program), diagnostics_(diagnostics), options_(options) {}

  // The ops are found first (on the run's threads), then rewritten in order.
  // An op an earlier rewrite erased (an old combine) is gone from its block
  // and skipped, as the walk of the block would skip it.
  PartitionResult run() {
    const bool mayChange = mayChangeLaterOps();
    for (Operation* op : opsToVisit(rewriter_.program(), [&](const Operation& candidate) {
           return candidate.distAttr() && (mayChange || needsRewrite(candidate));
         }))
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
      if (entry.kind == DistEntry::Kind::Tensor && value && value->dist && !(*value->dist == entry.tensor))
        return true;
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
    if (!value || !value->dist || *value->dist == dst) return value;
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
  // written once (writing it is most of the pass's time otherwise).
  std::optional<ReshardParts> memoizedParts(Operation* op, Value* input, const TensorDistAttr& dst,
                                            size_t location) {
    Program& program = rewriter_.program();
    std::string_view opRole = opRoleOf(program, *op);
    // Generation A's reshard carries no stop_gradient (newOpAttributes): no need to look.
    bool stops = program.generation() != DistGeneration::A && stopGradient(input);
    ReshardKey key{input->dist, &dst, input->type, opRole, stops};
    if (auto found = memo_.find(key); found != memo_.end()) return found->second;
    std::optional<ReshardParts> parts = reshardParts(program, input, dst, location, diagnostics_, opRole);
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
    Operation* created = createCombine(rewriter_, elements, opRoleOf(rewriter_.program(), *op));
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
