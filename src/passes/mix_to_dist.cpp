#include "passes/mix_to_dist.h"

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/rewriter.h"
#include "passes/pass_runner.h"
#include "support/op_names.h"
#include "syntax/attribute_dictionary.h"

namespace reshardctl {

namespace {

constexpr std::string_view kOpDistAttrKey = "op_dist_attr";

// The reasons ProcessMixBlock throws, in its words: a shard_tensor of a value
// another kind of op made, or of one already used elsewhere.
bool refused(const Operation& shard, DiagnosticEngine& diagnostics) {
  const Value* input = shard.numOperands() ? shard.operandValue(0) : nullptr;
  const Operation* maker = input ? input->definingOp : nullptr;
  if (!maker || (maker->name() != "builtin.parameter" && maker->name() != "pd_op.data")) {
    diagnostics.error(shard.location(), 1,
                      fmt::format("op [{}] is not Supported by shard_tensor op in pir mode (Paddle's mix2dist pass "
                                  "takes the input of a pd_op.data or builtin.parameter op only)",
                                  maker ? std::string(maker->name()) : "a block argument"));
    return true;
  }
  if (input->useCount() != 1) {
    diagnostics.error(shard.location(), 1,
                      fmt::format("shard_tensor is supposed to be called right after tensor is created, the use_count "
                                  "of tensor to be sharded is [{}] which is not Supported in right now",
                                  input->useCount()));
    return true;
  }
  return false;
}

// `dictionary` with op_dist_attr set to `distText`, written as Paddle prints
// a dictionary (Operation::set_attribute, then PrintAttributeMap).
std::string withOpDistAttr(std::string_view dictionary, std::string_view distText) {
  std::vector<std::pair<std::string_view, std::string>> entries;
  for (const AttributeEntry& entry : splitAttributes(dictionary))
    if (entry.key != kOpDistAttrKey) entries.emplace_back(entry.key, std::string(entry.value));
  entries.emplace_back(kOpDistAttrKey, std::string(distText));
  return writeAttributes(std::move(entries));
}

}  // namespace

MixToDistResult applyMixToDistPass(Program& program, DiagnosticEngine& diagnostics) {
  MixToDistResult result;
  std::vector<Operation*> shards;
  for (Operation* op : *program.body())
    if (op->name() == kShardTensorOp) shards.push_back(op);
  Rewriter rewriter(program);
  for (Operation* shard : shards) {
    if (refused(*shard, diagnostics)) {
      result.ok = false;  // Paddle throws: the pass stops there
      return result;
    }
    Value* input = shard->operandValue(0);
    Value* sharded = shard->result(0);
    Operation* maker = input->definingOp;
    const std::string_view distText = findAttribute(shard->attributes(), kOpDistAttrKey).value_or("");
    rewriter.retype(input, sharded->type, sharded->dist);
    rewriter.replaceAllUsesWith(sharded, input);
    if (shard->distAttr())
      rewriter.setAttributes(maker, program.strings().intern(withOpDistAttr(maker->attributes(), distText)),
                             shard->distAttr());
    rewriter.eraseOp(shard);
    ++result.removed;
  }
  return result;
}

bool runMixToDistAndPartition(Program& program, DiagnosticEngine& diagnostics, const PartitionOptions& options) {
  return runPass("mix2dist", program, [&](Program& p) { return applyMixToDistPass(p, diagnostics); }).ok &&
         runPass("partition", program, [&](Program& p) { return applyPartitionPass(p, diagnostics, options); }).ok;
}

}  // namespace reshardctl
