#include "passes/partition_worklist.h"

#include "ir/parallel/op_ranges.h"
#include "support/parallel_jobs.h"

namespace reshardctl {

namespace {

using Visit = std::function<bool(const Operation&)>;

void collect(const Block& block, const Visit& visit, std::vector<Operation*>& found);

// An op's nested blocks, then the op: partitionBlock's order.
void collectOp(Operation* op, const Visit& visit, std::vector<Operation*>& found) {
  for (const Block* region : op->regions()) collect(*region, visit, found);
  if (visit(*op)) found.push_back(op);
}

void collect(const Block& block, const Visit& visit, std::vector<Operation*>& found) {
  for (Operation* op : block) collectOp(op, visit, found);
}

}  // namespace

std::vector<Operation*> opsToVisit(const Program& program, const Visit& visit) {
  const ParallelWalk walk = planParallelWalk(program);
  std::vector<std::vector<Operation*>> found(walk.ranges.size());
  runOnThreads(walk.ranges.size(), walk.jobs, [&](size_t i) {
    std::vector<Operation*> mine;  // filled apart: found's neighbouring entries are other threads'
    for (Operation* op = walk.ranges[i].first; op != walk.ranges[i].end; op = op->next()) collectOp(op, visit, mine);
    found[i] = std::move(mine);
  });
  std::vector<Operation*> all;
  for (const std::vector<Operation*>& part : found) all.insert(all.end(), part.begin(), part.end());
  return all;
}

}  // namespace reshardctl
