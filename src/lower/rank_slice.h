// One rank's part of a dist program, foreseen before lowering: the top-level
// ops remove_other_rank_op_pass (rank_pruning.h) will certainly erase for
// that rank, so that a rank's program is cloned without them
// (ir/clone/program_clone.h) and the reshards among them are lowered alone,
// each in a small scratch program dropped as it goes (ReshardScratch): the
// process groups they make (ring ids are numbered in first-made order over
// every reshard, process_groups.h) and what they report are those of the
// whole lowering, and nothing they emit would outlive the pruning.
//
// An op is certainly erased when it is off the rank (its op mesh lacks the
// rank) or a constant (no op_dist_attr, no regions, results), has no regions,
// and every use of its results is by such an op, decided walking the
// top-level block backwards as the pruning does. A reshard among them is
// lowered by a function whose ops lie on its meshes, which lack the rank, so
// they go with it; one whose input's defining op is kept is kept too
// (global_to_sub_mesh relabels that op). Ops inside regions, and on-rank
// reshards, are always kept (their fate depends on what lowering makes).
// Work and memory: linear in ops and uses, a bit per value.
//
// For the varied 100k-op bench program on 8 ranks the full clone was 33 MB
// (Operation 120 B, Value 64 B, Operand 32 B a piece) on a 53 MB dist
// program; `lower --all-ranks --apply` peaked at 98 MB with it, 85 MB with
// slices. There a rank still keeps ~79k of the 121k ops (its stages' meshes
// cover 2 to 8 of the 8 ranks); on a program whose stages are apart, less.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_set>
#include <vector>

#include "ir/ir.h"
#include "ir/rewriter.h"
#include "lower/kept_dist_attrs.h"

namespace reshardctl {

class RankSlice {
 public:
  RankSlice(const Program& dist, int64_t rank);

  const Program& dist() const { return dist_; }
  // Whether the op (of `dist`) is left out of the rank's clone.
  bool skipped(const Operation& op) const;
  size_t skippedCount() const { return skippedCount_; }

 private:
  void setSkipped(const Operation& op, bool skipped);
  bool allUsesSkipped(const Operation& op) const;

  const Program& dist_;
  std::vector<bool> byFirstResult_;                  // by the id of the op's first result
  std::unordered_set<const Operation*> resultless_;  // skipped ops without results: few
  size_t skippedCount_ = 0;
};

// Where a skipped reshard is lowered: a program holding a copy of it and of
// its input's defining op (attributes, op_dist_attr, result types and
// layouts: what a reshard function reads of them), the dist program's types
// adopted so that they compare by pointer as in the rank's program. Renewed
// after kCopies copies, so it holds a bounded number of lowered reshards.
class ReshardScratch {
 public:
  explicit ReshardScratch(const Program& dist) : dist_(dist) {}

  // The copy of `reshard` (of the dist program), the rewriter set before it.
  Operation* copyOf(const Operation& reshard);
  Rewriter& rewriter() { return *rewriter_; }
  KeptDistAttrs& kept() { return *kept_; }

 private:
  static constexpr size_t kCopies = 1024;
  Operation* copyOp(const Operation& op, std::vector<Value*> operands);

  const Program& dist_;
  std::unique_ptr<Program> program_;
  std::unique_ptr<Rewriter> rewriter_;
  std::unique_ptr<KeptDistAttrs> kept_;
  size_t copies_ = 0;
};

}  // namespace reshardctl
