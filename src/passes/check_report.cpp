#include "passes/check_report.h"

#include <fmt/format.h>

#include "syntax/dist_attr_text.h"

namespace reshardctl {

namespace {

// The op the reshard was inserted for, and which of its operands reads it.
// The pass makes exactly one use per reshard.
std::pair<const Operation*, size_t> consumerOf(const Operation& reshard) {
  const Operand* use = reshard.result(0)->firstUse;
  if (!use) return {nullptr, 0};
  const Operation* consumer = use->owner();
  for (size_t i = 0; i < consumer->numOperands(); ++i)
    if (consumer->operandValue(i) == reshard.result(0)) return {consumer, i};
  return {consumer, 0};
}

}  // namespace

std::string describeInsertedReshards(const PartitionResult& result, const ValueNames& names,
                                     const SourceFile& source, DistGeneration generation) {
  std::string out;
  for (const Operation* reshard : result.inserted) {
    auto [consumer, index] = consumerOf(*reshard);
    if (!consumer) continue;
    const Value* input = reshard->operandValue(0);
    out += fmt::format("{}:{}: {} operand {} ({}): would insert dist_op.reshard from {} to {}\n",
                       source.name(), source.lineCol(consumer->location()).line, consumer->name(),
                       index, names.name(input), writeTypeDist(*input->dist, generation),
                       writeTypeDist(*reshard->result(0)->dist, generation));
  }
  size_t count = result.inserted.size();
  out += fmt::format("{} reshard{} would be inserted\n", count, count == 1 ? "" : "s");
  return out;
}

}  // namespace reshardctl
