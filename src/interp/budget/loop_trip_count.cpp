#include "interp/budget/loop_trip_count.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "interp/op_attributes.h"
#include "interp/tensor.h"
#include "support/op_names.h"

namespace reshardctl {

namespace {

// The comparisons a counted loop's condition is made by (ops.yaml's
// compare ops: less_than(x, y) etc.), and what each says of x against y.
enum class Compare : uint8_t { Less, LessEqual, Greater, GreaterEqual, NotEqual };
struct CompareRow {
  std::string_view op;
  Compare compare;
};
constexpr std::array kCompareOps = {CompareRow{"pd_op.less_than", Compare::Less},
                                    CompareRow{"pd_op.less_equal", Compare::LessEqual},
                                    CompareRow{"pd_op.greater_than", Compare::Greater},
                                    CompareRow{"pd_op.greater_equal", Compare::GreaterEqual},
                                    CompareRow{"pd_op.not_equal", Compare::NotEqual}};

bool holds(Compare compare, double x, double limit) {
  switch (compare) {
    case Compare::Less: return x < limit;
    case Compare::LessEqual: return x <= limit;
    case Compare::Greater: return x > limit;
    case Compare::GreaterEqual: return x >= limit;
    case Compare::NotEqual: return x != limit;
  }
  return false;
}

// A pd_op.full's value.
std::optional<double> constant(const Value* value) {
  if (!value || !value->definingOp || value->definingOp->name() != kFullOp) return std::nullopt;
  try {
    const OpAttributes attributes(value->definingOp->attributes());
    if (!attributes.has("value")) return std::nullopt;
    return attributes.number("value", 0);
  } catch (const KernelError&) {
    return std::nullopt;
  }
}

struct Condition {
  Compare compare = Compare::Less;
  const Value* counter = nullptr;
  double limit = 0;
};

// `value` = compare(counter, full(limit)).
std::optional<Condition> conditionOf(const Value* value) {
  const Operation* op = value ? value->definingOp : nullptr;
  if (!op || op->numOperands() != 2) return std::nullopt;
  for (const CompareRow& row : kCompareOps)
    if (op->name() == row.op)
      if (const std::optional<double> limit = constant(op->operandValue(1)))
        return Condition{row.compare, op->operandValue(0), *limit};
  return std::nullopt;
}

// `next` = increment(arg, value=s) or add(arg, full(s)): s.
std::optional<double> stepOf(const Value* next, const Value* arg) {
  const Operation* op = next ? next->definingOp : nullptr;
  if (!op || op->numOperands() == 0 || op->operandValue(0) != arg) return std::nullopt;
  if (op->name() == "pd_op.increment" || op->name() == "pd_op.increment_") {
    try {
      return OpAttributes(op->attributes()).number("value", 1);
    } catch (const KernelError&) {
      return std::nullopt;
    }
  }
  if (op->name() == "pd_op.add" && op->numOperands() == 2) return constant(op->operandValue(1));
  return std::nullopt;
}

// The index among the yield's operands of `value` past the condition, i.e.
// the body argument it becomes next time.
std::optional<size_t> yieldedAs(const Operation& yield, const Value* value) {
  for (size_t k = 1; k < yield.numOperands(); ++k)
    if (yield.operandValue(k) == value) return k - 1;
  return std::nullopt;
}

// How many trips a running loop makes: the first k >= 1 at which
// compare(start + k * step, limit) fails, or cap + 1 when that is past cap
// or never. The estimate comes from the arithmetic, and the neighbours are
// tested so that the count is the one running the loop in doubles gives.
int64_t tripsUntilFalse(const Condition& next, double start, double step, int64_t cap) {
  const auto stillRunning = [&](int64_t k) { return holds(next.compare, start + static_cast<double>(k) * step, next.limit); };
  const double distance = next.limit - start;
  double estimate = HUGE_VAL;  // never ends unless the step moves the counter across the limit
  switch (next.compare) {
    case Compare::Less:
    case Compare::LessEqual:
      if (step > 0) estimate = distance / step;
      break;
    case Compare::Greater:
    case Compare::GreaterEqual:
      if (step < 0) estimate = distance / step;
      break;
    case Compare::NotEqual:
      if (step != 0 && distance / step > 0 && distance / step == std::floor(distance / step)) estimate = distance / step;
      break;
  }
  const double capped = static_cast<double>(cap) + 1;
  int64_t k = std::isfinite(estimate) ? static_cast<int64_t>(std::clamp(std::floor(estimate), 1.0, capped)) : cap + 1;
  for (int tries = 0; tries < 4 && k > 1 && !stillRunning(k - 1); ++tries) --k;
  for (int tries = 0; tries < 4 && k <= cap && stillRunning(k); ++tries) ++k;
  return k <= cap && !stillRunning(k) ? k : cap + 1;
}

}  // namespace

std::optional<int64_t> staticTripCount(const Operation& loop, int64_t cap) {
  if (loop.name() != kWhileOp || loop.regions().size() != 1 || loop.numOperands() == 0) return std::nullopt;
  const Block& body = *loop.regions()[0];
  const Operation* yield = body.back();
  if (!yield || yield->name() != kYieldOp || yield->numOperands() == 0) return std::nullopt;
  const std::optional<Condition> next = conditionOf(yield->operandValue(0));
  if (!next) return std::nullopt;
  const std::optional<size_t> slot = yieldedAs(*yield, next->counter);
  if (!slot || *slot >= body.arguments().size() || *slot + 1 >= loop.numOperands()) return std::nullopt;
  const std::optional<double> step = stepOf(next->counter, body.arguments()[*slot]);
  const std::optional<double> start = constant(loop.operandValue(*slot + 1));
  if (!step || !start) return std::nullopt;
  // The first test: a constant, or the same comparison of the start value.
  bool running = false;
  if (const std::optional<double> constantTest = constant(loop.operandValue(0))) {
    running = *constantTest != 0;
  } else if (const std::optional<Condition> firstTest = conditionOf(loop.operandValue(0));
             firstTest && firstTest->counter == loop.operandValue(*slot + 1)) {
    running = holds(firstTest->compare, *start, firstTest->limit);
  } else {
    return std::nullopt;
  }
  return running ? tripsUntilFalse(*next, *start, *step, cap) : 0;
}

}  // namespace reshardctl
