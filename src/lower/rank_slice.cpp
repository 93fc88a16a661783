#include "lower/rank_slice.h"

#include "lower/rank_pruning.h"
#include "support/op_names.h"

namespace reshardctl {

RankSlice::RankSlice(const Program& dist, int64_t rank) : dist_(dist), byFirstResult_(dist.valueCount(), false) {
  for (const Operation* op = dist.body()->back(); op; op = op->prev())
    if (op->regions().empty() && (offRank(*op, rank) || isPrunableConstant(*op)) && allUsesSkipped(*op))
      setSkipped(*op, true);
  for (const Operation* op : *dist.body()) {
    if (op->name() != kReshardOp || !skipped(*op)) continue;
    const Value* input = op->numOperands() == 1 ? op->operandValue(0) : nullptr;
    const Operation* producer = input ? input->definingOp : nullptr;
    if (!producer || producer->parentBlock() != dist.body() || !skipped(*producer)) setSkipped(*op, false);
  }
}

bool RankSlice::skipped(const Operation& op) const {
  if (op.numResults() == 0) return resultless_.count(&op) != 0;
  const uint32_t id = op.result(0)->id;
  return id < byFirstResult_.size() && byFirstResult_[id];
}

void RankSlice::setSkipped(const Operation& op, bool skipped) {
  if (this->skipped(op) == skipped) return;
  skippedCount_ = skipped ? skippedCount_ + 1 : skippedCount_ - 1;
  if (op.numResults() == 0) {
    if (skipped) resultless_.insert(&op);
    else resultless_.erase(&op);
    return;
  }
  byFirstResult_[op.result(0)->id] = skipped;
}

bool RankSlice::allUsesSkipped(const Operation& op) const {
  for (size_t i = 0; i < op.numResults(); ++i)
    for (const Operand* use = op.result(i)->firstUse; use; use = use->nextUse())
      if (!skipped(*use->owner())) return false;
  return true;
}

Operation* ReshardScratch::copyOp(const Operation& op, std::vector<Value*> operands) {
  OpSpec spec;
  spec.name = op.name();
  spec.attributes = op.attributes();
  spec.distAttr = op.distAttr();
  spec.location = op.location();
  spec.distAttrLocation = op.distAttrLocation();
  spec.regionSyntax = op.regionSyntax();
  spec.spelling = op.headerSpelling();
  spec.operands = std::move(operands);
  for (size_t i = 0; i < op.numResults(); ++i) spec.resultTypes.push_back(op.result(i)->type);
  Operation* copy = program_->createOp(spec);
  program_->body()->insertBefore(nullptr, copy);
  for (size_t i = 0; i < op.numResults(); ++i) copy->result(i)->dist = op.result(i)->dist;
  return copy;
}

Operation* ReshardScratch::copyOf(const Operation& reshard) {
  if (!program_ || ++copies_ > kCopies) {
    kept_.reset();
    rewriter_.reset();
    program_ = std::make_unique<Program>();
    program_->types().adopt(dist_.types());
    program_->setDistStyle(dist_.distStyle());
    rewriter_ = std::make_unique<Rewriter>(*program_);
    kept_ = std::make_unique<KeptDistAttrs>(*program_);
    copies_ = 1;
  }
  // RankSlice skips a reshard only where its input has a defining op.
  const Value& input = *reshard.operandValue(0);
  Operation* producer = copyOp(*input.definingOp, {});
  Operation* copy = copyOp(reshard, {producer->result(input.index)});
  rewriter_->setInsertionPoint(copy);
  return copy;
}

}  // namespace reshardctl
