// Types, interned: each distinct type text becomes one Type, so comparing
// types is comparing pointers and a million-op program holds a few hundred
// Type objects. Tensor types are interpreted (dims, dtype, distribution);
// every other type is kept as its verbatim text. Reading and writing type
// text is the syntax stage's (syntax/type_text.h); this table only holds them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/dist_attr.h"
#include "ir/string_pool.h"
#include "support/text_hash_table.h"

namespace reshardctl {

enum class TypeKind : uint8_t {
  DenseTensor,  // builtin.tensor<..>, pd_op.tensor<..>, tensor<..>
  DistTensor,   // pd_dist.tensor<.., dist>
  Vector,       // vec[T1,T2]
  Other,        // anything else, verbatim
};

struct Type {
  std::string_view text;  // exactly as printed
  TypeKind kind = TypeKind::Other;
  std::string_view name;       // the text before '<' ("pd_dist.tensor")
  std::string_view shapeText;  // tensors: "4x8xf32", the part before the dist fields
  std::vector<int64_t> dims;   // tensors: global dims, -1 when dynamic
  std::string_view dtype;      // tensors
  TensorDistAttr dist;         // DistTensor: as written (generation A: ids unknown)
  std::vector<const Type*> elements;  // Vector

  bool isTensor() const { return kind == TypeKind::DenseTensor || kind == TypeKind::DistTensor; }
  bool isDist() const { return kind == TypeKind::DistTensor; }
  size_t rank() const { return dims.size(); }
};

class TypeTable {
 public:
  explicit TypeTable(StringPool& strings) : strings_(strings) {}

  // The type whose text is exactly `text`, or nullptr if none was added.
  const Type* find(std::string_view text) const;
  // A new Type holding `text` interned (so views into it stay valid), not yet
  // in the table: fill it in, then add() it.
  std::unique_ptr<Type> start(std::string_view text);
  const Type* add(std::unique_ptr<Type> type);
  // Makes every type of `other` one of this table's too, by reference (a
  // program's clone, ir/clone/program_clone.h): `other` must outlive this table.
  // Equal text stays one Type, so types still compare by pointer.
  void adopt(const TypeTable& other);
  // Takes over the types `other` made (a program parsed in chunks,
  // ir/clone/program_join.h): a text this table holds keeps this table's Type, the
  // others move here with their vec elements re-pointed. Returns each of
  // `other`'s types → this table's. `other` is left empty; the texts stay in
  // its string pool, which must outlive this table.
  std::unordered_map<const Type*, const Type*> absorb(TypeTable& other);

 private:
  StringPool& strings_;
  TextHashTable<const Type*> types_;
  std::vector<std::unique_ptr<Type>> owned_;  // the types this table made
};

}  // namespace reshardctl
