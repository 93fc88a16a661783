#include "passes/prepared_reshards.h"

#include <algorithm>
#include <utility>

#include "ir/parallel/op_ranges.h"
#include "support/op_names.h"
#include "support/parallel_jobs.h"

namespace reshardctl::partition {

namespace {

// Slices of the work a thread: enough that threads finishing early find more.
constexpr size_t kSlicesPerJob = 4;

// A reshard the rewrite will want: of `input` to `dst`.
struct Wanted {
  ReshardKey key;
  const Value* input;
  const TensorDistAttr* dst;
};

void want(const Program& program, const Operation& consumer, const Value* input, const TensorDistAttr& dst,
          std::vector<Wanted>& wanted) {
  if (layoutDiffers(input, dst)) wanted.push_back({reshardKey(program, consumer, input, dst), input, &dst});
}

// The operands partitionOperands reshards: tensor entries' values, and the
// elements of a tensor list made by a combine that matches its entry.
void wantOperands(const Program& program, const Operation& op, std::vector<Wanted>& wanted) {
  const OpDistAttr& attr = *op.distAttr();
  for (size_t i = 0; i < op.numOperands() && i < attr.operands.size(); ++i) {
    const DistEntry& entry = attr.operands[i];
    const Value* value = op.operandValue(i);
    if (entry.kind == DistEntry::Kind::Tensor) want(program, op, value, entry.tensor, wanted);
    if (entry.kind != DistEntry::Kind::List || !value || !value->definingOp) continue;
    const Operation& combine = *value->definingOp;
    if (combine.name() != kCombineOp || combine.numOperands() != entry.list.size()) continue;
    for (size_t k = 0; k < combine.numOperands(); ++k) want(program, op, combine.operandValue(k), entry.list[k], wanted);
  }
}

// Item indexes [first, second) of slice `s` of `count` items in `slices`.
std::pair<size_t, size_t> slice(size_t count, size_t slices, size_t s) {
  return {count * s / slices, count * (s + 1) / slices};
}

size_t slicesFor(size_t count, unsigned jobs) { return std::min(count, size_t{jobs} * kSlicesPerJob); }

}  // namespace

void PreparedReshards::prepare(const Program& program, const std::vector<Operation*>& ops) {
  const unsigned jobs = jobsFor(program.valueCount(), kParallelWalkValues);
  if (jobs <= 1 || ops.empty()) return;
  // Each slice is filled apart and moved into its place when done:
  // neighbouring places are other threads' (shared cache lines).
  std::vector<std::vector<Wanted>> wantedBySlice(slicesFor(ops.size(), jobs));
  runOnThreads(wantedBySlice.size(), jobs, [&](size_t s) {
    std::vector<Wanted> wanted;
    for (auto [i, end] = slice(ops.size(), wantedBySlice.size(), s); i < end; ++i)
      if (ops[i]->distAttr()) wantOperands(program, *ops[i], wanted);
    wantedBySlice[s] = std::move(wanted);
  });
  std::vector<Wanted> distinct;
  for (const std::vector<Wanted>& wanted : wantedBySlice)
    for (const Wanted& one : wanted)
      if (index_.emplace(one.key, distinct.size()).second) distinct.push_back(one);
  texts_.resize(distinct.size());
  const size_t slices = slicesFor(distinct.size(), jobs);
  runOnThreads(slices, jobs, [&](size_t s) {
    for (auto [i, end] = slice(distinct.size(), slices, s); i < end; ++i)
      texts_[i] = writeReshard(program, distinct[i].key, distinct[i].input, *distinct[i].dst);
  });
}

std::optional<ReshardText> PreparedReshards::take(const ReshardKey& key) {
  auto found = index_.find(key);
  if (found == index_.end() || !texts_[found->second]) return std::nullopt;
  return std::exchange(texts_[found->second], std::nullopt);
}

}  // namespace reshardctl::partition
