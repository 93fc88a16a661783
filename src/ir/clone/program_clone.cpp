#include "ir/clone/program_clone.h"

#include <unordered_map>
#include <vector>

namespace reshardctl {

// Builds the clone in two walks: the ops and values first (each value keeps
// its id, which indexes the map from old values to new; an op is found by
// its first result's id, or, having none, in a small map), then every use
// list rebuilt in its original order.
class ProgramCloner {
 public:
  ProgramCloner(const Program& from, const SkipOp& skip)
      : from_(from), skip_(skip), to_(std::make_unique<Program>()), newValues_(from.valueCount(), nullptr),
        oldValues_(from.valueCount(), nullptr) {}

  std::unique_ptr<Program> run() {
    copyProgramFields();
    copyBlock(*from_.body(), *to_->body());
    linkUses();
    return std::move(to_);
  }

 private:
  void copyProgramFields() {
    Program& to = *to_;
    to.types_.adopt(from_.types_);
    to.nextValueId_ = from_.nextValueId_;
    to.written_ = from_.written_;
    to.original_ = &from_;
    ++from_.liveClones_;
  }

  // The value keeps its id, type, dist and name; its uses come in linkUses.
  Value* copyValue(const Value& from, Value& to) {
    to = from;
    to.firstUse = nullptr;
    oldValues_[from.id] = &from;
    newValues_[from.id] = &to;
    return &to;
  }

  void copyBlock(const Block& from, Block& to) {
    for (const Value* argument : from.arguments()) {
      Value* copy = copyValue(*argument, *to_->arena_.make<Value>());
      copy->ownerBlock = &to;
      to.arguments_.push_back(copy);
    }
    to.argumentAttributes_ = from.argumentAttributes_;
    to.keywordArguments_ = from.keywordArguments_;
    to.argumentsOnOwnLines_ = from.argumentsOnOwnLines_;
    to.closeShift_ = from.closeShift_;
    if (std::string_view blank = from_.blankLinesAtEnd(&from); !blank.empty()) to_->blankLinesAtEnd_[&to] = blank;
    const bool top = &from == from_.body();
    for (const Operation* op : from)
      if (!top || !skip_ || !skip_(*op)) to.insertBefore(nullptr, copyOp(*op));
  }

  Operation* copyOp(const Operation& from) {
    Operation* to = to_->arena_.make<Operation>();
    to->header_ = from.header_;
    to->debugId_ = from.debugId_;
    to->numOperands_ = from.numOperands_;
    to->operands_ = to_->arena_.makeArray<Operand>(from.numOperands_);
    for (uint32_t i = 0; i < from.numOperands_; ++i) to->operands_[i].owner_ = to;  // linked in linkUses
    to->numResults_ = from.numResults_;
    to->results_ = to_->arena_.makeArray<Value>(from.numResults_);
    for (uint32_t i = 0; i < from.numResults_; ++i) copyValue(from.results_[i], to->results_[i])->definingOp = to;
    if (from.numResults_ == 0) resultlessOps_.emplace(&from, to);
    if (std::string_view blank = from_.blankLinesBefore(&from); !blank.empty()) to_->blankLinesBeforeOp_[to] = blank;
    if (std::string_view indent = from_.indentationOf(&from); !indent.empty()) to_->tabIndentedOps_[to] = indent;
    for (const Block* region : from.regions()) copyBlock(*region, *to_->appendRegion(to));
    return to;
  }

  // Operand::link puts a use at the head of its value's list, so each list is
  // linked back to front: the clone's lists read in the original's order.
  void linkUses() {
    std::vector<const Operand*> uses;
    for (const Value* value : oldValues_) {
      if (!value) continue;
      uses.clear();
      for (const Operand* use = value->firstUse; use; use = use->nextUse()) uses.push_back(use);
      for (auto use = uses.rbegin(); use != uses.rend(); ++use) {
        Operation* owner = copyOf((*use)->owner_);
        if (!owner) continue;  // a skipped op, or one outside the program (checkGraph refuses that)
        Operand& copy = owner->operands_[*use - (*use)->owner_->operands_];
        copy.value_ = newValues_[value->id];
        copy.link();
      }
    }
  }

  // The copy of `op`; nullptr for an op not in the program.
  Operation* copyOf(const Operation* op) const {
    if (op->numResults_ == 0) {
      auto found = resultlessOps_.find(op);
      return found == resultlessOps_.end() ? nullptr : found->second;
    }
    const Value& first = op->results_[0];
    if (first.id >= oldValues_.size() || oldValues_[first.id] != &first) return nullptr;
    return newValues_[first.id]->definingOp;
  }

  const Program& from_;
  const SkipOp& skip_;
  std::unique_ptr<Program> to_;
  std::vector<Value*> newValues_;        // by value id
  std::vector<const Value*> oldValues_;  // by value id; null: an id no longer in the program
  std::unordered_map<const Operation*, Operation*> resultlessOps_;  // ops without results: few
};

std::unique_ptr<Program> cloneProgram(const Program& original) { return ProgramCloner(original, SkipOp()).run(); }

std::unique_ptr<Program> cloneProgram(const Program& original, const SkipOp& skip) {
  return ProgramCloner(original, skip).run();
}

}  // namespace reshardctl
