#include "ir/ir.h"

#include <algorithm>
#include <cassert>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

namespace reshardctl {

// ---- Operand / Value ---------------------------------------------------------

void Operand::link() {
  if (!value_) return;
  nextUse_ = value_->firstUse;
  if (nextUse_) nextUse_->prevNext_ = &nextUse_;
  prevNext_ = &value_->firstUse;
  value_->firstUse = this;
}

void Operand::unlink() {
  if (!value_) return;
  *prevNext_ = nextUse_;
  if (nextUse_) nextUse_->prevNext_ = prevNext_;
  nextUse_ = nullptr;
  prevNext_ = nullptr;
}

void Operand::set(Value* value) {
  unlink();
  value_ = value;
  link();
}

size_t Value::useCount() const {
  size_t count = 0;
  for (Operand* use = firstUse; use; use = use->nextUse()) ++count;
  return count;
}

void Value::replaceAllUsesWith(Value* other) {
  while (firstUse) firstUse->set(other);
}

// ---- Operation / Block -------------------------------------------------------

const std::vector<Block*>& Operation::regions() const {
  static const std::vector<Block*> kNone;
  return regions_ ? *regions_ : kNone;
}

void Block::insertBefore(Operation* before, Operation* op) {
  op->parent_ = this;
  op->next_ = before;
  op->prev_ = before ? before->prev_ : last_;
  if (op->prev_) op->prev_->next_ = op; else first_ = op;
  if (before) before->prev_ = op; else last_ = op;
  ++size_;
}

void Block::remove(Operation* op) {
  if (op->prev_) op->prev_->next_ = op->next_; else first_ = op->next_;
  if (op->next_) op->next_->prev_ = op->prev_; else last_ = op->prev_;
  op->prev_ = op->next_ = nullptr;
  op->parent_ = nullptr;
  --size_;
}

// ---- Program -----------------------------------------------------------------

Program::Program() : types_(strings_) { body_ = createBlock(nullptr); }

Program::~Program() {
  assert(liveClones_ == 0 && "a program's clones must go before it (ir/clone/program_clone.h)");
  if (original_) --original_->liveClones_;
}

Block* Program::createBlock(Operation* parentOp) {
  blocks_.push_back(std::make_unique<Block>());
  blocks_.back()->parentOp_ = parentOp;
  return blocks_.back().get();
}

Value* Program::addBlockArgument(Block* block, std::string_view keywordName) {
  Value* arg = arena_.make<Value>();
  arg->type = pendingType();
  arg->ownerBlock = block;
  arg->argName = keywordName;
  arg->id = nextValueId_++;
  arg->index = static_cast<uint32_t>(block->arguments_.size());
  block->arguments_.push_back(arg);
  if (!keywordName.empty()) block->keywordArguments_ = true;
  return arg;
}

void Program::setArgumentAttributes(Value* argument, std::string_view text) {
  Block* block = argument->ownerBlock;
  if (block->argumentAttributes_.size() <= argument->index) block->argumentAttributes_.resize(argument->index + 1);
  block->argumentAttributes_[argument->index] = text;
}

void Program::setAttributes(Operation* op, std::string_view text, const OpDistAttr* distAttr) {
  op->header_.attributes = text;
  op->header_.distAttr = distAttr;
}

Operation* Program::createOp(const OpSpec& spec) {
  Operation* op = arena_.make<Operation>();
  op->header_ = static_cast<const OpHeader&>(spec);
  if (spec.debugId) {
    op->debugId_ = *spec.debugId;
    written_.usesDebugIds = true;
    written_.maxDebugId = std::max(written_.maxDebugId, *spec.debugId);
  }
  op->numOperands_ = static_cast<uint32_t>(spec.operands.size());
  op->operands_ = arena_.makeArray<Operand>(spec.operands.size());
  for (size_t i = 0; i < spec.operands.size(); ++i) {
    op->operands_[i].owner_ = op;
    op->operands_[i].set(spec.operands[i]);
  }
  op->numResults_ = static_cast<uint32_t>(spec.resultTypes.size());
  op->results_ = arena_.makeArray<Value>(spec.resultTypes.size());
  for (size_t i = 0; i < spec.resultTypes.size(); ++i) {
    Value& result = op->results_[i];
    result.type = spec.resultTypes[i];
    bool dist = result.type && result.type != pendingType() && result.type->isDist();
    result.dist = dist ? &result.type->dist : nullptr;
    result.definingOp = op;
    result.id = nextValueId_++;
    result.index = static_cast<uint32_t>(i);
  }
  for (size_t i = 0; i < spec.numRegions; ++i) appendRegion(op);
  return op;
}

Block* Program::appendRegion(Operation* op) {
  if (!op->regions_) {
    regionLists_.push_back(std::make_unique<std::vector<Block*>>());
    op->regions_ = regionLists_.back().get();
  }
  op->regions_->push_back(createBlock(op));
  return op->regions_->back();
}

const Type* pendingType() {
  static const Type kPending = [] {
    Type type;
    type.text = "<<PENDING TYPE>>";
    return type;
  }();
  return &kPending;
}

void Program::eraseOp(Operation* op) {
  for (size_t i = 0; i < op->numResults(); ++i) assert(op->result(i)->useEmpty());
  for (size_t i = 0; i < op->numOperands(); ++i) op->operands_[i].set(nullptr);
  if (op->parent_) op->parent_->remove(op);
}

const OpDistAttr* Program::keepOpDistAttr(OpDistAttr attr) {
  opDistAttrs_.push_back(std::make_unique<OpDistAttr>(std::move(attr)));
  return opDistAttrs_.back().get();
}

const TensorDistAttr* Program::keepTensorDistAttr(TensorDistAttr attr) {
  tensorDistAttrs_.push_back(std::make_unique<TensorDistAttr>(std::move(attr)));
  return tensorDistAttrs_.back().get();
}

std::string checkGraph(const Program& program) {
  // Count each value's uses as seen from the operands, then walk the lists.
  std::unordered_map<const Value*, size_t> usesFromOperands;
  std::vector<const Value*> values;
  std::string problem;
  auto note = [&](const Value* v) {
    if (usesFromOperands.try_emplace(v, 0).second) values.push_back(v);
  };
  auto walk = [&](const Block& block, auto&& self) -> void {
    for (const Value* arg : block.arguments()) note(arg);
    const Operation* previous = nullptr;
    for (const Operation* op : block) {
      if (op->parentBlock() != &block && problem.empty())
        problem = fmt::format("op '{}' does not point at its block", op->name());
      if (op->prev() != previous && problem.empty())
        problem = fmt::format("op '{}' has a broken prev link", op->name());
      previous = op;
      for (size_t i = 0; i < op->numResults(); ++i) note(op->result(i));
      for (size_t i = 0; i < op->numOperands(); ++i) {
        const Operand& operand = op->operand(i);
        if (operand.owner() != op && problem.empty())
          problem = fmt::format("operand {} of '{}' has the wrong owner", i, op->name());
        if (const Value* v = operand.get()) {
          note(v);
          ++usesFromOperands[v];
        }
      }
      for (const Block* region : op->regions()) self(*region, self);
    }
    if (block.back() != previous && problem.empty()) problem = "a block's last op is wrong";
  };
  walk(*program.body(), walk);
  for (const Value* v : values) {
    size_t listed = 0;
    for (const Operand* use = v->firstUse; use; use = use->nextUse()) {
      if (use->get() != v && problem.empty()) problem = "a use list holds a use of another value";
      if (++listed > usesFromOperands[v] + 1) break;  // a cycle: stop counting
    }
    if (listed != usesFromOperands[v] && problem.empty())
      problem = fmt::format("a value has {} uses in its list but {} operands use it", listed,
                            usesFromOperands[v]);
  }
  return problem;
}

}  // namespace reshardctl
