#include "ir/parallel/op_ranges.h"

#include <algorithm>

#include "support/parallel_jobs.h"

namespace reshardctl {

namespace {

// Ranges a thread: enough that threads finishing early find more.
constexpr size_t kRangesPerJob = 4;

}  // namespace

std::vector<OpRange> cutOps(const Block& block, size_t parts) {
  const size_t count = block.size();
  parts = std::clamp<size_t>(parts, 1, std::max<size_t>(count, 1));
  std::vector<OpRange> ranges;
  Operation* op = block.front();
  for (size_t part = 0; part < parts && op; ++part) {
    const size_t size = count / parts + (part < count % parts ? 1 : 0);
    OpRange range{op, nullptr};
    for (size_t i = 0; i < size; ++i) op = op->next();
    range.end = op;
    ranges.push_back(range);
  }
  return ranges;
}

ParallelWalk planParallelWalk(const Program& program) {
  ParallelWalk walk;
  walk.jobs = jobsFor(program.valueCount(), kParallelWalkValues);
  walk.ranges = cutOps(*program.body(), walk.jobs == 1 ? 1 : size_t{walk.jobs} * kRangesPerJob);
  return walk;
}

}  // namespace reshardctl
