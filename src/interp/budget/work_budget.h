// validate's budget: the work and memory a run may take, so a hostile or
// careless program (loops nested three deep, a loop of large matmuls, one
// huge tensor) is refused with the figure rather than running for hours or
// exhausting memory. Work is counted in element operations: an op's run
// costs its result elements (times the contracted size of a matmul) plus a
// fixed cost per run, twice (serially and on the ranks' pieces).
//
// Up front, before anything runs: the program's ops counted once each (a
// loop's body once, a counted loop's as often as it states: nested 9,999-trip
// loops are 10^12 runs of their body) against --max-work, and every value's bytes, serial and
// pieces (a replicated value once per rank), against --max-memory. While running: each op run is charged, so a
// loop that repeats past the budget stops at the op that passes it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ir/ir.h"

namespace reshardctl {

struct WorkBudget {
  // A few seconds of the interpreter here (a million small op runs, or a
  // dozen 512x512 matmuls); 0 = no limit.
  uint64_t maxWork = 2'000'000'000;
  // Serial values and the ranks' pieces together, in each process; 0 = no limit.
  uint64_t maxMemoryBytes = uint64_t{4} << 30;
  // The MPI processes the ranks' pieces are shared over (interp/share/): each
  // holds the serial values whole and its share of the pieces.
  uint64_t processes = 1;
};

// The cost of one run of `op` (see above); -1 dims count as `dynamicDim`.
uint64_t opWork(const Operation& op, int64_t dynamicDim);

// The dims a tensor value has for the count: its type's by default; a
// shrink asks what they would be after it (interp/shrink/shrink.h).
using ValueDims = std::function<std::vector<int64_t>(const Value*)>;

// What the program asks up front: its ops, each run once (a counted loop's
// body as often as it states, at most maxLoopTrips times; any other loop's
// once), and its values' bytes, serial and on the ranks. O(ops + values).
struct ProgramCost {
  uint64_t work = 0;
  uint64_t bytes = 0;        // serial and on the ranks: serialBytes + rankBytes
  uint64_t serialBytes = 0;  // the serial values
  uint64_t rankBytes = 0;    // the ranks' pieces
  // What one of `processes` holds: the serial values and its share of the pieces.
  uint64_t bytesPerProcess(uint64_t processes) const;
};
ProgramCost programCost(const Program& program, int64_t dynamicDim, int64_t maxLoopTrips, const ValueDims& dims = {});
// Whether `cost` is within `budget` (a limit of 0 is none).
bool withinBudget(const ProgramCost& cost, const WorkBudget& budget);

// Throws a usage Failure (support/failure.h) saying the figure when the
// program's ops (counted as programCost does, loops at most
// `maxLoopIterations` times) or its values exceed the budget.
void checkBudgetUpFront(const Program& program, const WorkBudget& budget, int64_t dynamicDim,
                        int64_t maxLoopIterations);

// The running count: charge() each op run; throws a usage Failure at the run
// that passes the budget.
class WorkMeter {
 public:
  WorkMeter(const WorkBudget& budget, int64_t dynamicDim) : budget_(budget), dynamicDim_(dynamicDim) {}
  void charge(const Operation& op);
  uint64_t spent() const { return spent_; }

 private:
  WorkBudget budget_;
  int64_t dynamicDim_;
  uint64_t spent_ = 0;
};

}  // namespace reshardctl
