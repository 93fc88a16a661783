#include "ir/rewriter.h"

namespace reshardctl {

Operation* Rewriter::create(const OpSpec& spec) {
  // The spec is copied only where a debug dump's new op takes a fresh id:
  // apply creates an op per reshard, and the copy's two vectors were a
  // fifth of that.
  Operation* op = nullptr;
  if (!spec.debugId && program_.usesDebugIds()) {
    OpSpec withId = spec;
    withId.debugId = program_.newDebugId();
    op = program_.createOp(withId);
  } else {
    op = program_.createOp(spec);
  }
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
