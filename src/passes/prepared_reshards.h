// The reshards the partition pass's rewrite will insert, written ahead on the
// run's threads: writing a reshard's text (its op_dist_attr, attribute
// dictionary and result type) was most of the rewrite's time on one thread
// (32M of its 57M instructions on the varied 100k-op bench program), and it
// only reads the graph. Alike reshards recur all over a program, so the
// threads first find the distinct ones (by ReshardKey), then write each
// once. The rewrite keeps each text when it first needs it
// (keepReshard), in its own order, so the program's strings, types and dist
// attrs are the ones a serial rewrite makes; a text it never needs (a
// reshard --dedupe shares) is dropped. Memory: one text per distinct reshard.
#pragma once

#include <optional>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"
#include "passes/reshard_parts.h"

namespace reshardctl::partition {

class PreparedReshards {
 public:
  // Writes, on the run's threads, the reshard of every operand of `ops` (and
  // every element of a tensor-list operand) whose layout differs from its
  // entry. On one thread it writes nothing: the rewrite writes each reshard
  // as it comes, as before.
  void prepare(const Program& program, const std::vector<Operation*>& ops);

  // The text of `key`'s reshard, handed over once; nullopt when not written.
  std::optional<ReshardText> take(const ReshardKey& key);

 private:
  std::unordered_map<ReshardKey, size_t, ReshardKeyHash> index_;  // into texts_
  std::vector<std::optional<ReshardText>> texts_;
};

}  // namespace reshardctl::partition
