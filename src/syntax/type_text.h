// Reading and writing type text: `pd_dist.tensor<4x8xf32, mesh_shape:[2],
// dims_mappings:[0]>`, `vec[T1,T2]`, and verbatim others. Each distinct text
// is read once and kept in the program's TypeTable (ir/type.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dist_attr.h"
#include "ir/dist_generation.h"
#include "ir/type.h"
#include "syntax/dist_attr_text.h"

namespace reshardctl {

// What the type texts read so far looked like (generation detection).
struct TypeTextEvidence {
  DistTextStyle dist;
  bool sawBareTensor = false;  // `tensor<..>`: generation E
};

// The type spelled `text`, found at `offset` in the source. `<<NULL TYPE>>`
// is nullptr. Throws InputError on a malformed tensor type. A text read for
// the first time adds what it shows to `evidence`, when given.
const Type* readType(TypeTable& types, std::string_view text, size_t offset,
                     TypeTextEvidence* evidence = nullptr);

// `base` (a tensor type) with its distribution replaced by `dist`: the
// result type of a reshard. Keeps the global shape and dtype.
const Type* distTensorType(TypeTable& types, const Type* base, const TensorDistAttr& dist,
                           const DistWriteStyle& style);
// Its text alone, which touches no table (so threads can write it at once):
// readType(types, text, 0) then gives the type.
std::string distTensorTypeText(const Type* base, const TensorDistAttr& dist, const DistWriteStyle& style);
// `vec[T1,T2]` (joined by "," with no space, as every printer version does).
const Type* vectorType(TypeTable& types, const std::vector<const Type*>& elements);

}  // namespace reshardctl
