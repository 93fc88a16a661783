#include "view/op_index.h"

namespace reshardctl {

OpIndex::OpIndex(const Program& program) { addBlock(*program.body(), 0); }

void OpIndex::addBlock(const Block& block, uint32_t depth) {
  // Nesting is bounded by the parser (200 levels), so recursion is safe.
  for (const Operation* op : block) {
    index_.emplace(op, static_cast<uint32_t>(ops_.size()));
    ops_.push_back(op);
    depths_.push_back(depth);
    for (const Block* region : op->regions()) addBlock(*region, depth + 1);
  }
}

}  // namespace reshardctl
