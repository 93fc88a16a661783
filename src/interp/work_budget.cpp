#include "interp/work_budget.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "interp/op_attributes.h"
#include "ir/type.h"
#include "support/op_names.h"
#include "support/failure.h"

namespace reshardctl {

namespace {

constexpr uint64_t kPerRun = 1000;  // what an op run costs beyond its elements (dispatch, pieces, comparison)
constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max() / 4;

uint64_t times(uint64_t a, uint64_t b) { return a != 0 && b > kSaturated / a ? kSaturated : a * b; }
uint64_t plus(uint64_t a, uint64_t b) { return std::min(kSaturated, a + b); }

uint64_t elements(const Type* type, int64_t dynamicDim) {
  if (type == nullptr || !type->isTensor()) return 1;
  uint64_t count = 1;
  for (int64_t dim : type->dims) count = times(count, static_cast<uint64_t>(dim < 0 ? dynamicDim : dim));
  return count;
}

uint64_t elementBytes(const Type* type) {
  if (type == nullptr) return 0;
  const std::string_view dtype = type->dtype;
  if (dtype == "f64" || dtype == "i64" || dtype == "ui64" || dtype == "c64") return 8;
  if (dtype == "f16" || dtype == "bf16" || dtype == "i16") return 2;
  if (dtype == "i8" || dtype == "ui8" || dtype == "b" || dtype == "i1") return 1;
  return dtype == "c128" ? 16 : 4;
}

// How many copies of a value's elements a run holds: the serial one and the
// ranks' pieces (each replica of a piece counts: 4,096 ranks of a replicated
// value hold 4,096 copies).
uint64_t copies(const Type* type) {
  if (type == nullptr || !type->isDist()) return 2;
  const ProcessMesh& mesh = type->dist.mesh;
  uint64_t ranks = 1, split = 1;
  for (int64_t size : mesh.shape) ranks = times(ranks, static_cast<uint64_t>(std::max<int64_t>(size, 1)));
  for (int64_t dim : type->dist.dimsMapping)
    if (dim >= 0 && static_cast<size_t>(dim) < mesh.shape.size())
      split = times(split, static_cast<uint64_t>(std::max<int64_t>(mesh.shape[static_cast<size_t>(dim)], 1)));
  return plus(1, std::max<uint64_t>(1, ranks / split));
}

// A matmul's contracted size: the largest last dim of its operands (an upper bound).
uint64_t contracted(const Operation& op, int64_t dynamicDim) {
  if (op.name().find("matmul") == std::string_view::npos) return 1;
  uint64_t largest = 1;
  for (size_t i = 0; i < op.numOperands(); ++i) {
    const Value* v = op.operandValue(i);
    if (v == nullptr || v->type == nullptr || !v->type->isTensor() || v->type->dims.empty()) continue;
    const int64_t dim = v->type->dims.back();
    largest = std::max(largest, static_cast<uint64_t>(dim < 0 ? dynamicDim : dim));
  }
  return largest;
}

// The number a pd_op.full states (its `value`), or nullopt when `value` is
// not one.
std::optional<double> fullValue(const Value* value) {
  const Operation* op = value != nullptr ? value->definingOp : nullptr;
  if (op == nullptr || op->name() != kFullOp) return std::nullopt;
  const double number = OpAttributes(op->attributes()).number("value", std::nan(""));
  return std::isfinite(number) ? std::optional<double>(number) : std::nullopt;
}

// The op defining `value` when it is `name` with two operands.
const Operation* comparison(const Value* value, std::string_view name) {
  const Operation* op = value != nullptr ? value->definingOp : nullptr;
  return op != nullptr && op->name() == name && op->numOperands() == 2 ? op : nullptr;
}

// How often a pd_op.while runs its body when the program states it: a
// counted loop (tests/golden/validate/while_loop.ir's form: a counter from a
// pd_op.full, compared by pd_op.less_than with a pd_op.full limit before the
// loop and again at the body's end, after a pd_op.increment of the
// counter's block argument). Any other loop: nullopt.
std::optional<uint64_t> statedTrips(const Operation& loop) {
  if (loop.name() != kWhileOp || loop.regions().empty() || loop.numOperands() < 2) return std::nullopt;
  const Block& body = *loop.regions().front();
  const Operation* yield = body.back();
  const Operation* before = comparison(loop.operandValue(0), "pd_op.less_than");
  if (yield == nullptr || yield->name() != kYieldOp || yield->numOperands() != loop.numOperands() || !before)
    return std::nullopt;
  const Value* limit = before->operandValue(1);
  const Operation* after = comparison(yield->operandValue(0), "pd_op.less_than");
  if (!after || after->operandValue(1) != limit) return std::nullopt;
  for (size_t k = 1; k < loop.numOperands() && k - 1 < body.arguments().size(); ++k) {
    if (loop.operandValue(k) != before->operandValue(0)) continue;
    const Operation* step = yield->operandValue(k) ? yield->operandValue(k)->definingOp : nullptr;
    if (step == nullptr || step->name() != "pd_op.increment" || step->numOperands() != 1 ||
        step->operandValue(0) != body.arguments()[k - 1] || after->operandValue(0) != yield->operandValue(k))
      return std::nullopt;
    const std::optional<double> start = fullValue(loop.operandValue(k)), end = fullValue(limit);
    const double by = OpAttributes(step->attributes()).number("value", 1);
    if (!start || !end || !(by > 0)) return std::nullopt;
    const double trips = std::ceil((*end - *start) / by);
    return trips <= 0 ? 0 : trips >= static_cast<double>(kSaturated) ? kSaturated : static_cast<uint64_t>(trips);
  }
  return std::nullopt;
}

// The work of running `block` `runs` times, each loop in it as often as it
// states (at most `maxTrips`, where validate stops a loop), or once.
uint64_t blockWork(const Block& block, uint64_t runs, uint64_t maxTrips, int64_t dynamicDim) {
  uint64_t work = 0;
  for (const Operation* op : block) {
    work = plus(work, times(runs, opWork(*op, dynamicDim)));
    const uint64_t trips = std::max<uint64_t>(1, std::min(statedTrips(*op).value_or(1), maxTrips));
    for (const Block* region : op->regions())
      work = plus(work, blockWork(*region, times(runs, trips), maxTrips, dynamicDim));
  }
  return work;
}

std::string units(uint64_t work) { return fmt::format("{:.3g}", static_cast<double>(work)); }

}  // namespace

uint64_t opWork(const Operation& op, int64_t dynamicDim) {
  uint64_t results = 0;
  for (size_t i = 0; i < op.numResults(); ++i) results = plus(results, elements(op.result(i)->type, dynamicDim));
  return times(2, plus(kPerRun, times(results, contracted(op, dynamicDim))));
}

void checkBudgetUpFront(const Program& program, const WorkBudget& budget, int64_t dynamicDim,
                        int64_t maxLoopIterations) {
  const uint64_t work =
      blockWork(*program.body(), 1, static_cast<uint64_t>(std::max<int64_t>(maxLoopIterations, 1)), dynamicDim);
  uint64_t bytes = 0;
  walkOps(*program.body(), [&](const Operation* op) {
    for (size_t i = 0; i < op->numResults(); ++i) {
      const Type* type = op->result(i)->type;
      bytes = plus(bytes, times(copies(type), times(elements(type, dynamicDim), elementBytes(type))));
    }
  });
  if (budget.maxWork != 0 && work > budget.maxWork)
    throw Failure(FailureKind::Usage,
                  fmt::format("validate refuses the program: its ops, each run once (a counted loop's body as often as "
                              "it states), need {} units of work, more "
                              "than --max-work={} (raise it to run it anyway)", units(work), budget.maxWork));
  if (budget.maxMemoryBytes != 0 && bytes > budget.maxMemoryBytes)
    throw Failure(FailureKind::Usage,
                  fmt::format("validate refuses the program: its values, serial and on the ranks, need {} bytes, "
                              "more than --max-memory={} (raise it to run it anyway)", units(bytes),
                              budget.maxMemoryBytes));
}

void WorkMeter::charge(const Operation& op) {
  spent_ = plus(spent_, opWork(op, dynamicDim_));
  if (budget_.maxWork != 0 && spent_ > budget_.maxWork)
    throw Failure(FailureKind::Usage,
                  fmt::format("running {} (again: loops repeat it) passed --max-work={} units of work; raise "
                              "--max-work to run it anyway", op.name(), budget_.maxWork));
}

}  // namespace reshardctl
