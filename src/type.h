// Types, interned: each distinct type text becomes one Type, so comparing
// types is comparing pointers and a million-op program holds a few hundred
// Type objects. Tensor types are interpreted (dims, dtype, distribution);
// every other type is kept as its verbatim text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "dist_attr.h"
#include "dist_attr_text.h"
#include "string_pool.h"

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

  // The type spelled `text`, found at `offset` in the source. `<<NULL TYPE>>`
  // is nullptr. Throws InputError on a malformed tensor type.
  const Type* get(std::string_view text, size_t offset);

  // `base` (a tensor type) with its distribution replaced by `dist`: the
  // result type of a reshard. Keeps the global shape and dtype.
  const Type* withDist(const Type* base, const TensorDistAttr& dist, const DistWriteStyle& style);
  // `vec[T1,T2]` (joined by "," with no space, as every printer version does).
  const Type* vectorOf(const std::vector<const Type*>& elements);

  // What the tensor types read so far looked like (generation detection).
  const DistTextStyle& distStyle() const { return distStyle_; }
  bool sawBareTensor() const { return sawBareTensor_; }  // `tensor<..>`: generation E

 private:
  const Type* make(std::string_view text, size_t offset);

  StringPool& strings_;
  std::unordered_map<std::string_view, std::unique_ptr<Type>> types_;
  DistTextStyle distStyle_;
  bool sawBareTensor_ = false;
};

}  // namespace reshardctl
