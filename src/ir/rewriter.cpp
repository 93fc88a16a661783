#include "ir/rewriter.h"

namespace reshardctl {

Operation* Rewriter::create(const OpSpec& spec) {
  OpSpec withId = spec;
  if (!withId.debugId && program_.usesDebugIds()) withId.debugId = program_.newDebugId();
  Operation* op = program_.createOp(withId);
  block_->insertBefore(before_, op);
  ++changes_;
  return op;
}

void Rewriter::setOperand(Operation* op, size_t index, Value* value) {
  op->setOperand(index, value);
  ++changes_;
}

void Rewriter::replaceAllUsesWith(Value* from, Value* to) {
  from->replaceAllUsesWith(to);
  ++changes_;
}

void Rewriter::replaceAllUsesExcept(Value* from, Value* to, const Operation* except) {
  Operand* use = from->firstUse;
  while (use) {
    Operand* next = use->nextUse();  // set() unlinks `use` from this list
    if (use->owner() != except) use->set(to);
    use = next;
  }
  ++changes_;
}

void Rewriter::eraseOp(Operation* op) {
  program_.eraseOp(op);
  ++changes_;
}

}  // namespace reshardctl
