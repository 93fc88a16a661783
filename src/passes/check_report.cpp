#include "passes/check_report.h"

#include <fmt/format.h>

#include "support/text.h"
#include "syntax/dist_attr_text.h"

namespace reshardctl {

namespace {

// Which operand of `user` reads `value` (the pass makes one use per reshard).
size_t operandIndex(const Operation& user, const Value* value) {
  for (size_t i = 0; i < user.numOperands(); ++i)
    if (user.operandValue(i) == value) return i;
  return 0;
}

// The op the reshard was inserted for, and which of its operands reads it.
// A reshard of a list element feeds the builtin.combine the pass made (no
// place in the input): the op is the one that reads the combine.
void findConsumer(const Operation& reshard, NeededReshard& needed) {
  const Operand* use = reshard.result(0)->firstUse;
  if (!use) return;
  const Operation* consumer = use->owner();
  needed.op = consumer;
  needed.operand = operandIndex(*consumer, reshard.result(0));
  const bool madeByPass = consumer->location() == 0;  // offset 0 is the program's '{', never an op
  if (!madeByPass || consumer->numResults() != 1 || !consumer->result(0)->firstUse) return;
  const Operation* user = consumer->result(0)->firstUse->owner();
  needed.element = static_cast<int64_t>(needed.operand);
  needed.op = user;
  needed.operand = operandIndex(*user, consumer->result(0));
}

}  // namespace

void forEachNeededReshard(const PartitionResult& result, const ValueNames& names,
                          const std::function<void(const NeededReshard&)>& take) {
  for (const Operation* reshard : result.inserted) {
    NeededReshard one;
    findConsumer(*reshard, one);
    if (!one.op) continue;
    const Value* input = reshard->operandValue(0);
    one.value = names.name(input);
    one.from = *input->dist;
    one.to = *reshard->result(0)->dist;
    take(one);
  }
}

std::vector<NeededReshard> neededReshards(const PartitionResult& result, const ValueNames& names) {
  std::vector<NeededReshard> needed;
  forEachNeededReshard(result, names, [&](const NeededReshard& one) { needed.push_back(one); });
  return needed;
}

Diagnostic neededReshardDiagnostic(const NeededReshard& needed, DistGeneration generation) {
  Diagnostic d;
  d.severity = Severity::Warning;
  d.offset = needed.op->location();
  d.length = 1;
  d.code = kReshardNeeded;
  const std::string element = needed.element < 0 ? "" : fmt::format(" element {}", needed.element);
  d.message = fmt::format("{} operand {}{} ({}): would insert dist_op.reshard from {} to {}", needed.op->name(),
                          needed.operand, element, needed.value, writeTypeDist(needed.from, generation),
                          writeTypeDist(needed.to, generation));
  return d;
}

std::string neededReshardsSummary(size_t count) {
  return plural(count, "reshard") + " would be inserted";
}

}  // namespace reshardctl
