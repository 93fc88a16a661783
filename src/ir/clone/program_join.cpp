#include "ir/clone/program_join.h"

#include <algorithm>
#include <utility>

namespace reshardctl {

const Type* ProgramJoiner::joinedType(const Type* type) const {
  auto it = types_.find(type);
  return it == types_.end() ? type : it->second;  // nullptr, pendingType(): shared by every program
}

void ProgramJoiner::retype(Value& value, uint32_t idOffset, const SameDists& same) const {
  value.id += idOffset;
  const Type* before = value.type;
  const Type* after = joinedType(before);
  if (after != before) {
    value.type = after;
    if (value.dist == &before->dist) {
      value.dist = &after->dist;
      return;
    }
  }
  // A copy with ids filled in: the part's, or an equal one made before.
  if (value.dist && value.type && value.dist != &value.type->dist && !same.ofValues.empty()) {
    if (auto it = same.ofValues.find(value.dist); it != same.ofValues.end()) value.dist = it->second;
  }
}

void ProgramJoiner::retypeAndRenumber(Block& block, uint32_t idOffset, const SameDists& same) {
  for (Value* argument : block.arguments_) retype(*argument, idOffset, same);
  for (Operation* op : block) {
    for (uint32_t i = 0; i < op->numResults_; ++i) retype(op->results_[i], idOffset, same);
    if (op->header_.distAttr && !same.ofOps.empty()) {
      if (auto it = same.ofOps.find(op->header_.distAttr); it != same.ofOps.end()) op->header_.distAttr = it->second;
    }
    for (Block* region : op->regions()) retypeAndRenumber(*region, idOffset, same);
  }
}

void ProgramJoiner::append(std::unique_ptr<Program> part, const SameDists& same) {
  types_ = whole_.types_.absorb(part->types_);
  retypeAndRenumber(*part->body_, whole_.nextValueId_, same);
  whole_.nextValueId_ += part->nextValueId_;

  Block& into = *whole_.body_;
  Block& from = *part->body_;
  for (Operation* op : from) op->parent_ = &into;
  if (from.first_) {
    from.first_->prev_ = into.last_;
    if (into.last_) into.last_->next_ = from.first_;
    else into.first_ = from.first_;
    into.last_ = from.last_;
  }
  into.size_ += from.size_;
  from.first_ = from.last_ = nullptr;
  from.size_ = 0;
  if (from.closeShift_) into.closeShift_ = from.closeShift_;

  whole_.blankLinesBeforeOp_.merge(part->blankLinesBeforeOp_);
  whole_.tabIndentedOps_.merge(part->tabIndentedOps_);
  for (auto& [block, lines] : part->blankLinesAtEnd_) whole_.blankLinesAtEnd_[block == &from ? &into : block] = lines;
  part->blankLinesAtEnd_.clear();
  whole_.written_.usesDebugIds = whole_.written_.usesDebugIds || part->written_.usesDebugIds;
  whole_.written_.maxDebugId = std::max(whole_.written_.maxDebugId, part->written_.maxDebugId);
  whole_.parts_.push_back(std::move(part));
}

}  // namespace reshardctl
