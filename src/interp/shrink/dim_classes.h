// The logical dims of a program: every static extent (a dim of a value's
// type, or an entry of an attribute that holds a shape) is a slot, and the
// ops' shape relations join slots into classes by a union-find: elementwise
// broadcasting, matmul's contraction, transpose's permutation, embedding
// tables against ids, a creation op's `shape` against its result, and the
// regions' yields against their op's results. Relations that are not
// equalities are kept as such: a reshape's groups of dims whose products
// are equal, a concat's or split's sum along its axis. Slice bounds pin
// the sliced dims (they keep their size). Only equal extents are joined: a
// relation the program's own shapes break is left to the interpreter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ir/ir.h"

namespace reshardctl {

// An attribute entry that holds an extent: element `element` of the int
// list of attribute `key` of `op` (`shape:(pd_op.IntArray)[2,4,16]`).
struct AttributeSlot {
  const Operation* op = nullptr;
  std::string_view key;
  size_t element = 0;
  int32_t slot = 0;
};

// A relation that is not an equality, between classes (slots' roots).
struct DimRelation {
  enum class Kind : uint8_t { Product, Sum };
  Kind kind = Kind::Product;
  const Operation* op = nullptr;  // the op that imposes it, for the error
  std::vector<int32_t> lhs;       // Product: prod(lhs) == prod(rhs); Sum: lhs[0] == sum(rhs)
  std::vector<int32_t> rhs;
};

// A tensor dim split over `count` ranks (a mesh dim of that size).
struct ShardNeed {
  int32_t slot = 0;
  int64_t count = 1;
};

// A dim that integer inputs index (an embedding table's rows, the classes of
// a cross entropy): it keeps at least `least` (seeded_inputs.h's range).
struct FloorNeed {
  int32_t slot = 0;
  int64_t least = 1;
};

class DimClasses {
 public:
  // Work and memory are O(ops + slots): each op's rule looks at its own
  // operands and results once.
  static DimClasses derive(const Program& program);

  int32_t find(int32_t slot) const;
  size_t slotCount() const { return extents_.size(); }
  int64_t extent(int32_t slot) const { return extents_[static_cast<size_t>(slot)]; }
  // The first slot of a value's dims (a vector value's elements' dims one
  // after another), or -1 when its type holds none.
  int32_t valueBase(const Value* value) const;

  const std::vector<AttributeSlot>& attributeSlots() const { return attributeSlots_; }
  const std::vector<DimRelation>& relations() const { return relations_; }  // in program order
  const std::vector<ShardNeed>& shardNeeds() const { return shardNeeds_; }
  const std::vector<int32_t>& pinned() const { return pinned_; }  // slots that keep their extent
  const std::vector<FloorNeed>& floors() const { return floors_; }

 private:
  friend class DimClassBuilder;
  std::vector<int64_t> extents_;
  mutable std::vector<int32_t> parent_;
  std::vector<int32_t> valueBase_;  // by Value::id
  std::vector<AttributeSlot> attributeSlots_;
  std::vector<DimRelation> relations_;
  std::vector<ShardNeed> shardNeeds_;
  std::vector<int32_t> pinned_;
  std::vector<FloorNeed> floors_;
};

// The dims of a tensor or vector type, one after another (empty otherwise).
std::vector<int64_t> flatDims(const Type* type);

}  // namespace reshardctl
