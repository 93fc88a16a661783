// The only way passes change the graph: an insertion point plus a few
// mutation primitives (MLIR's OpBuilder/RewriterBase, cut to what the
// partition pass needs). Every change goes through here, so a pass can tell
// whether it changed anything; passes never write an op's, value's or
// block's fields themselves.
#pragma once

#include <cstddef>
#include <string_view>

#include "ir/ir.h"

namespace reshardctl {

class Rewriter {
 public:
  explicit Rewriter(Program& program) : program_(program) {}

  Program& program() { return program_; }

  void setInsertionPoint(Operation* op) { block_ = op->parentBlock(); before_ = op; }
  void setInsertionPointAfter(Operation* op) { block_ = op->parentBlock(); before_ = op->next(); }
  void setInsertionPointToEnd(Block* block) { block_ = block; before_ = nullptr; }

  // Restores the insertion point when it goes out of scope.
  class InsertionGuard {
   public:
    explicit InsertionGuard(Rewriter& r) : rewriter_(r), block_(r.block_), before_(r.before_) {}
    ~InsertionGuard() { rewriter_.block_ = block_; rewriter_.before_ = before_; }
    InsertionGuard(const InsertionGuard&) = delete;
    InsertionGuard& operator=(const InsertionGuard&) = delete;

   private:
    Rewriter& rewriter_;
    Block* block_;
    Operation* before_;
  };

  // Creates an op at the insertion point (which stays before the next op, so
  // consecutive creates come out in order).
  Operation* create(const OpSpec& spec);

  void setOperand(Operation* op, size_t index, Value* value);
  void replaceAllUsesWith(Value* from, Value* to);
  // Every use of `from` except those by `except` (for "reshard after the op").
  void replaceAllUsesExcept(Value* from, Value* to, const Operation* except);
  void eraseOp(Operation* op);
  // A new attribute dictionary and op_dist_attr for `op` (dist_to_dense
  // drops op_dist_attr); `text` must outlive the program (intern it).
  void setAttributes(Operation* op, std::string_view text, const OpDistAttr* distAttr) {
    program_.setAttributes(op, text, distAttr);
    ++changes_;
  }

  // A value takes another type and the distribution that type gives it (a
  // result taking its entry's layout). Inline: apply does it per result.
  void retype(Value* value, const Type* type, const TensorDistAttr* dist) {
    value->type = type;
    value->dist = dist;
    ++changes_;
  }
  // The value's distribution, told again or more fully (a new reshard's
  // result, process ids learnt from another op); its type stays.
  void setDist(Value* value, const TensorDistAttr* dist) {
    value->dist = dist;
    ++changes_;
  }

  // The same, keeping the op's op_dist_attr (a shrink rewriting the shapes an
  // attribute holds).
  void setAttributes(Operation* op, std::string_view text) { setAttributes(op, text, op->distAttr()); }

  size_t changeCount() const { return changes_; }

 private:
  Program& program_;
  Block* block_ = nullptr;
  Operation* before_ = nullptr;
  size_t changes_ = 0;
};

}  // namespace reshardctl
