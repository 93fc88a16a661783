// A program's top-level ops cut into consecutive ranges, so that a stage can
// walk the graph on several threads (the verifier, the partition pass's
// analysis): each thread takes a range at a time, its ops with their nested
// blocks. Cutting reads the top-level list once (Block::size() counts):
// a few instructions an op, but a chase from op to op through memory (perf:
// counting then cutting was a tenth of apply -j 2's time on the varied
// 100k-op program, three cuts a run).
#pragma once

#include <cstddef>
#include <vector>

#include "ir/ir.h"

namespace reshardctl {

// Programs with fewer values are walked on one thread unless -j says
// otherwise. The walks cost 100 to 400 instructions an op (callgrind, varied
// bench program: the verifier, the partition pass's search), a few
// milliseconds at this size, against tens of microseconds to start a
// thread; much below it the saving is lost in the noise of a run.
inline constexpr size_t kParallelWalkValues = 20000;

struct OpRange {
  Operation* first = nullptr;
  Operation* end = nullptr;  // one past the last; nullptr: the block's end
};

// `block`'s ops in at most `parts` ranges of about equal counts, in order;
// none for an empty block.
std::vector<OpRange> cutOps(const Block& block, size_t parts);

// The ranges a walk of `program` uses and the threads it runs on: the run's
// -j (support/parallel_jobs.h) for its size; several ranges a thread, so
// that a thread left with a heavy range (a loop holding many ops) is not
// the only one still working.
struct ParallelWalk {
  std::vector<OpRange> ranges;
  unsigned jobs = 1;
};
ParallelWalk planParallelWalk(const Program& program);

// Calls fn(op) for every op of `range`, nested blocks included, in print order.
template <typename Fn>
void walkOps(const OpRange& range, Fn&& fn) {
  for (Operation* op = range.first; op != range.end; op = op->next()) {
    fn(op);
    for (Block* region : op->regions()) walkOps(*region, fn);
  }
}

}  // namespace reshardctl
