// The `dist_op.reshard` ops of a program, each with its plan (planner.h) and
// named the way the printed program names things: the line and the values
// (%9 = reshard %8). What `plan` prints and `apply --stats` sums.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "ir/source.h"
#include "passes/partition_pass.h"
#include "reshard/cost_model.h"
#include "reshard/plan.h"
#include "reshard/planner.h"

namespace reshardctl {

struct ReshardReport {
  const Operation* op = nullptr;
  size_t line = 0;
  std::string result;  // "%9"
  std::string input;   // "%8"
  // Shape, dtype and both layouts, with process ids filled in where the dump
  // leaves them out (see resolveReshardRequest).
  ReshardRequest request;
  // Shared by every report of the same request (programs repeat reshards
  // every layer): a report held for a view costs its request and names, not
  // a copy of the plan's steps.
  std::shared_ptr<const Plan> plan;
  std::string error;  // why there is no plan
  // A reshard the pass inserted (plan --apply): "19:5", the input's line and
  // column of the op it is for, as apply --check names it; else "".
  std::string consumer;
};

// The sums under the reports: "2 reshards, 3 steps, estimated 15.60 us".
struct PlanTotals {
  size_t reshards = 0;
  size_t steps = 0;
  size_t unplanned = 0;  // reports without a plan
  double estUs = 0;
  void add(const ReshardReport& report);
  std::string text() const;
};

// Where each reported op sits: a line number (1-based).
using LineOf = std::function<size_t(const Operation&)>;

// The line of `op` in the file the program was read from.
LineOf sourceLines(const SourceFile& source);
// The line of each reshard in the program as it prints (the text is read as
// it is printed, never held whole): for reshards a pass inserted, which the
// input file does not have.
LineOf printedLines(const Program& program);

// The request for one reshard: the input's global shape and dtype, the input
// value's layout as source and the result's as destination. Generation-A dumps
// print no process ids for a mesh other than the op's; they are taken from an
// op that uses the result on a mesh of that shape, else from the reshard's
// merged mesh less the other side's ids. Throws PlanError when the types say
// too little to plan.
ReshardRequest resolveReshardRequest(const Operation& reshard);

// Each report as it is made, handed over to be kept (moved from) or dropped:
// what is written as it goes holds one report at a time.
using TakeReport = std::function<void(ReshardReport&)>;

// Plans the given reshard ops in order, one report at a time.
void forEachPlannedReshard(const Program& program, const std::vector<Operation*>& ops, const CostModel& costs,
                           const LineOf& lineOf, const TakeReport& take);
// Plans every dist_op.reshard in print order (nested blocks included), one
// report at a time.
void forEachPlannedProgramReshard(const Program& program, const CostModel& costs, const LineOf& lineOf,
                                  const TakeReport& take);
// The same, every report kept.
std::vector<ReshardReport> planProgramReshards(const Program& program, const CostModel& costs,
                                               const LineOf& lineOf);
// Plans the given reshard ops (e.g. the ones a pass inserted).
std::vector<ReshardReport> planReshardOps(const Program& program, const std::vector<Operation*>& ops,
                                          const CostModel& costs, const LineOf& lineOf);

// The reshards a pass inserted that are still in the program (folding may
// erase some again), planned and summed: what `apply --stats` and `list`
// count, one report at a time.
PlanTotals planInsertedReshards(const Program& program, const PartitionResult& result, const CostModel& costs);

// The reshards `plan` and `run` work on: those in the file or, with `pass`
// set, every reshard after the partition pass (lines as `apply` prints them).
// A reshard without a plan is diagnosed at its line. Returns false when the
// pass failed or some reshard has no plan.
bool reportLoadedReshards(Program& program, const SourceFile& source, const PartitionOptions* pass,
                          const CostModel& costs, DiagnosticEngine& diagnostics,
                          std::vector<ReshardReport>* reports);
// As reportLoadedReshards, each report handed to `take` as it is made (`plan`
// writes it and drops it: memory one report, not the program's reshards).
bool forEachLoadedReshard(Program& program, const SourceFile& source, const PartitionOptions* pass,
                          const CostModel& costs, DiagnosticEngine& diagnostics, const TakeReport& take);

}  // namespace reshardctl
