// The ops of a program numbered in print order, nested blocks included, with
// their nesting depth: the node ids of the graph views and the rows of the
// page. Built in one walk; looking an op up is a hash lookup.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace reshardctl {

class OpIndex {
 public:
  explicit OpIndex(const Program& program);

  size_t size() const { return ops_.size(); }
  const Operation& op(size_t index) const { return *ops_[index]; }
  uint32_t depth(size_t index) const { return depths_[index]; }  // 0 = the program's body
  size_t indexOf(const Operation& op) const { return index_.at(&op); }

  const std::vector<const Operation*>& ops() const { return ops_; }

 private:
  void addBlock(const Block& block, uint32_t depth);

  std::vector<const Operation*> ops_;
  std::vector<uint32_t> depths_;
  std::unordered_map<const Operation*, uint32_t> index_;
};

}  // namespace reshardctl
