#include "lower/rank_pruning.h"

#include "ir/rewriter.h"
#include "lower/local_shape.h"
#include "lower/lowered_ops.h"
#include "support/op_names.h"

namespace reshardctl {

bool offRank(const Operation& op, int64_t rank) {
  return op.distAttr() && positionOf(op.distAttr()->mesh, rank) < 0;
}

bool isPrunableConstant(const Operation& op) {
  return !op.distAttr() && op.regions().empty() && op.numResults() > 0;
}

namespace {

bool anyResultUsed(const Operation& op) {
  for (size_t i = 0; i < op.numResults(); ++i)
    if (!op.result(i)->useEmpty()) return true;
  return false;
}

class Pruner {
 public:
  Pruner(Program& program, int64_t rank, DiagnosticEngine& diagnostics)
      : rewriter_(program), rank_(rank), diagnostics_(diagnostics) {}

  PruneResult run() {
    pruneBlock(*rewriter_.program().body());
    return result_;
  }

 private:
  void pruneBlock(Block& block) {
    for (Operation* op = block.back(); op;) {
      Operation* previous = op->prev();
      pruneOp(op);
      op = previous;
    }
  }

  void pruneOp(Operation* op) {
    const bool reshard = op->name() == kReshardOp;
    const bool constant = isPrunableConstant(*op);
    if (!offRank(*op, rank_) && !reshard && !constant) {
      for (Block* region : op->regions()) pruneBlock(*region);
      return;
    }
    if (!anyResultUsed(*op)) {
      rewriter_.eraseOp(op);
      ++result_.erased;
      return;
    }
    if (reshard && !offRank(*op, rank_)) {
      diagnostics_.error(sourceLocation(*op), 1,
                         "Paddle's remove_other_rank_op_pass asserts \"There should not have useful dist.reshard op\": "
                         "on this rank the fake reshard a sender keeps is used by a later op of this rank "
                         "(the rank must both send and receive)");
      result_.ok = false;
    }
  }

  Rewriter rewriter_;
  int64_t rank_;
  DiagnosticEngine& diagnostics_;
  PruneResult result_;
};

}  // namespace

PruneResult removeOtherRankOps(Program& program, int64_t rank, DiagnosticEngine& diagnostics) {
  return Pruner(program, rank, diagnostics).run();
}

}  // namespace reshardctl
