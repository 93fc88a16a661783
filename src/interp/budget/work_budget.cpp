#include "interp/budget/work_budget.h"

#include <algorithm>
#include <limits>
#include <string_view>

#include <fmt/format.h>

#include "interp/budget/loop_trip_count.h"
#include "ir/type.h"
#include "support/failure.h"

namespace reshardctl {

namespace {

constexpr uint64_t kPerRun = 1000;  // what an op run costs beyond its elements (dispatch, pieces, comparison)
constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max() / 4;

uint64_t times(uint64_t a, uint64_t b) { return a != 0 && b > kSaturated / a ? kSaturated : a * b; }
uint64_t plus(uint64_t a, uint64_t b) { return std::min(kSaturated, a + b); }

// How a count reads a value's dims: through a shrink's sizes, or its type's.
struct DimsReader {
  int64_t dynamicDim;
  const ValueDims* dims;  // null: the type's own

  uint64_t size(int64_t dim) const { return static_cast<uint64_t>(dim < 0 ? dynamicDim : dim); }
  bool shrunk() const { return dims != nullptr && *dims; }
  uint64_t product(const std::vector<int64_t>& extents) const {
    uint64_t count = 1;
    for (int64_t dim : extents) count = times(count, size(dim));
    return count;
  }
  // Only a shrink's reading builds a vector: the meter charges every op run.
  uint64_t elements(const Value* value) const {
    if (value == nullptr || value->type == nullptr || !value->type->isTensor()) return 1;
    return shrunk() ? product((*dims)(value)) : product(value->type->dims);
  }
  uint64_t last(const Value* value) const {  // of a tensor with dims
    if (!shrunk()) return size(value->type->dims.back());
    const std::vector<int64_t> sized = (*dims)(value);
    return size(sized.empty() ? value->type->dims.back() : sized.back());
  }
};

// The interpreter holds every element as a double (interp/tensor.h's data),
// whatever the dtype: an f32 or i8 value takes 8 bytes an element there.
uint64_t elementBytes(const Type* type) { return type == nullptr ? 0 : sizeof(double); }

// How many copies of a value's elements the ranks' pieces hold (each replica
// of a piece counts: 4,096 ranks of a replicated value hold 4,096 copies).
uint64_t rankCopies(const Type* type) {
  if (type == nullptr || !type->isDist()) return 1;
  const ProcessMesh& mesh = type->dist.mesh;
  uint64_t ranks = 1, split = 1;
  for (int64_t size : mesh.shape) ranks = times(ranks, static_cast<uint64_t>(std::max<int64_t>(size, 1)));
  for (int64_t dim : type->dist.dimsMapping)
    if (dim >= 0 && static_cast<size_t>(dim) < mesh.shape.size())
      split = times(split, static_cast<uint64_t>(std::max<int64_t>(mesh.shape[static_cast<size_t>(dim)], 1)));
  return std::max<uint64_t>(1, ranks / split);
}

// A matmul's contracted size: the largest last dim of its operands (an upper bound).
uint64_t contracted(const Operation& op, const DimsReader& reader) {
  if (op.name().find("matmul") == std::string_view::npos) return 1;
  uint64_t largest = 1;
  for (size_t i = 0; i < op.numOperands(); ++i) {
    const Value* v = op.operandValue(i);
    if (v == nullptr || v->type == nullptr || !v->type->isTensor() || v->type->dims.empty()) continue;
    largest = std::max(largest, reader.last(v));
  }
  return largest;
}

uint64_t workOf(const Operation& op, const DimsReader& reader) {
  uint64_t results = 0;
  for (size_t i = 0; i < op.numResults(); ++i) results = plus(results, reader.elements(op.result(i)));
  return times(2, plus(kPerRun, times(results, contracted(op, reader))));
}

std::string units(uint64_t work) { return fmt::format("{:.3g}", static_cast<double>(work)); }

// The cost of running `block` `runs` times: each counted loop's body
// (interp/budget/loop_trip_count.h) as often as it states, at most `maxTrips`
// (where validate stops a loop); any other region once per run.
void addBlockCost(const Block& block, uint64_t runs, int64_t maxTrips, const DimsReader& reader, ProgramCost& cost) {
  for (const Operation* op : block) {
    cost.work = plus(cost.work, times(runs, workOf(*op, reader)));
    for (size_t i = 0; i < op->numResults(); ++i) {
      const Type* type = op->result(i)->type;
      const uint64_t bytes = times(reader.elements(op->result(i)), elementBytes(type));
      cost.serialBytes = plus(cost.serialBytes, bytes);
      cost.rankBytes = plus(cost.rankBytes, times(rankCopies(type), bytes));
      cost.bytes = plus(cost.serialBytes, cost.rankBytes);
    }
    if (op->regions().empty()) continue;
    const int64_t trips = std::clamp<int64_t>(staticTripCount(*op, maxTrips).value_or(1), 1, std::max<int64_t>(maxTrips, 1));
    for (const Block* region : op->regions())
      addBlockCost(*region, times(runs, static_cast<uint64_t>(trips)), maxTrips, reader, cost);
  }
}

}  // namespace

uint64_t opWork(const Operation& op, int64_t dynamicDim) { return workOf(op, DimsReader{dynamicDim, nullptr}); }

ProgramCost programCost(const Program& program, int64_t dynamicDim, int64_t maxLoopTrips, const ValueDims& dims) {
  ProgramCost cost;
  addBlockCost(*program.body(), 1, maxLoopTrips, DimsReader{dynamicDim, &dims}, cost);
  return cost;
}


uint64_t ProgramCost::bytesPerProcess(uint64_t processes) const {
  processes = std::max<uint64_t>(processes, 1);
  return plus(serialBytes, rankBytes / processes + (rankBytes % processes != 0 ? 1 : 0));
}

bool withinBudget(const ProgramCost& cost, const WorkBudget& budget) {
  return (budget.maxWork == 0 || cost.work <= budget.maxWork) &&
         (budget.maxMemoryBytes == 0 || cost.bytesPerProcess(budget.processes) <= budget.maxMemoryBytes);
}

// The fewest processes whose share of the pieces fits `limit` beside the
// serial values; 0 when none does (the serial values alone exceed it).
uint64_t processesToFit(const ProgramCost& cost, uint64_t limit) {
  if (cost.serialBytes >= limit) return 0;
  const uint64_t room = limit - cost.serialBytes;
  return std::max<uint64_t>(1, cost.rankBytes / room + (cost.rankBytes % room != 0 ? 1 : 0));
}

void checkBudgetUpFront(const Program& program, const WorkBudget& budget, int64_t dynamicDim,
                        int64_t maxLoopIterations) {
  const ProgramCost cost = programCost(program, dynamicDim, maxLoopIterations);
  if (budget.maxWork != 0 && cost.work > budget.maxWork)
    throw Failure(FailureKind::Usage,
                  fmt::format("validate refuses the program: its ops, each run once (a counted loop's body as often as "
                              "it states), need {} units of work, more "
                              "than --max-work={} (raise it to run it anyway)", units(cost.work), budget.maxWork));
  const uint64_t processes = std::max<uint64_t>(budget.processes, 1);
  const uint64_t bytes = cost.bytesPerProcess(processes);
  if (budget.maxMemoryBytes == 0 || bytes <= budget.maxMemoryBytes) return;
  const uint64_t enough = processesToFit(cost, budget.maxMemoryBytes);
  const std::string more =
      enough == 0 ? "" : fmt::format(", or share the ranks over {} processes (mpirun -np {})", enough, enough);
  if (processes == 1)
    throw Failure(FailureKind::Usage,
                  fmt::format("validate refuses the program: its values, serial and on the ranks, need {} bytes, "
                              "more than --max-memory={} (raise it to run it anyway, validate a smaller copy with "
                              "--shrink{})", units(bytes), budget.maxMemoryBytes, more));
  throw Failure(FailureKind::Usage,
                fmt::format("validate refuses the program: its values need {} bytes in each of {} processes (the "
                            "serial values, {} bytes, and 1/{} of the ranks' pieces, {} bytes), more than "
                            "--max-memory={} (raise it to run it anyway, validate a smaller copy with --shrink{})",
                            units(bytes), processes, units(cost.serialBytes), processes, units(cost.rankBytes),
                            budget.maxMemoryBytes, more));
}

void WorkMeter::charge(const Operation& op) {
  spent_ = plus(spent_, opWork(op, dynamicDim_));
  if (budget_.maxWork != 0 && spent_ > budget_.maxWork)
    throw Failure(FailureKind::Usage,
                  fmt::format("running {} (again: loops repeat it) passed --max-work={} units of work; raise "
                              "--max-work to run it anyway", op.name(), budget_.maxWork));
}

}  // namespace reshardctl
