#include "ir/parallel/op_ranges.h"

#include <doctest/doctest.h>

#include <vector>

#include "support/parallel_jobs.h"

namespace reshardctl {

namespace {

// A program of `count` top-level ops, none with operands.
void addOps(Program& program, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    OpSpec spec;
    spec.name = "test.op";
    program.body()->insertBefore(nullptr, program.createOp(spec));
  }
}

}  // namespace

TEST_CASE("op ranges: consecutive, covering every op once, sizes within one of each other") {
  for (size_t ops : {0, 1, 5, 17, 100}) {
    for (size_t parts : {1, 2, 3, 8, 200}) {
      Program program;
      addOps(program, ops);
      CHECK(program.body()->size() == ops);
      const std::vector<OpRange> ranges = cutOps(*program.body(), parts);
      CHECK(ranges.size() == std::min(ops, parts));
      std::vector<const Operation*> seen;
      size_t smallest = ops, largest = 0;
      for (const OpRange& range : ranges) {
        size_t size = 0;
        for (const Operation* op = range.first; op != range.end; op = op->next(), ++size) seen.push_back(op);
        smallest = std::min(smallest, size);
        largest = std::max(largest, size);
      }
      std::vector<const Operation*> all;
      for (const Operation* op : *program.body()) all.push_back(op);
      CHECK(seen == all);
      if (!ranges.empty()) CHECK(largest - smallest <= 1);
    }
  }
}

TEST_CASE("op ranges: a block counts its ops as they come and go") {
  Program program;
  addOps(program, 3);
  CHECK(program.body()->size() == 3);
  program.eraseOp(program.body()->front()->next());
  CHECK(program.body()->size() == 2);
  CHECK(cutOps(*program.body(), 5).size() == 2);
}

TEST_CASE("op ranges: a walk plans one range on one thread, several a thread on more") {
  Program program;
  addOps(program, 50);
  setRequestedJobs(1);
  CHECK(planParallelWalk(program).ranges.size() == 1);
  setRequestedJobs(3);
  const ParallelWalk walk = planParallelWalk(program);
  CHECK(walk.jobs == 3);
  CHECK(walk.ranges.size() == 12);
  setRequestedJobs(0);
}

}  // namespace reshardctl
