// Reading and writing the text forms of distribution attributes: the dist
// part of a `pd_dist.tensor<...>` type and the value of `op_dist_attr`.
// Reading follows grammar/dist_grammar.h; writing follows Paddle's printer
// for the dump's generation (pir-format.md, "four generations").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dist_attr.h"

namespace reshardctl {

// Which of Paddle's print generations a dump uses (see pir-format.md).
enum class DistGeneration : uint8_t {
  A,  // March-April 2024: `dims_maping` entries, ids only on the op mesh
};

// The inside of a tensor type's angle brackets: `4x8xf32[, dist fields]`.
struct TensorTypeBody {
  std::vector<int64_t> dims;  // -1 for dynamic dims
  std::string_view dtype;     // points into the text that was read
  bool distributed = false;
  TensorDistAttr dist;        // when distributed; ids unknown unless printed
};

// Both readers throw InputError with offsets counted from `offset`, the
// position of `text` in the source.
TensorTypeBody readTensorTypeBody(std::string_view text, size_t offset);
OpDistAttr readOpDistAttr(std::string_view text, size_t offset);

// `mesh_shape:[2],dims_mappings:[-1,-1], partial(0,SUM)`: the dist part of a type.
std::string writeTypeDist(const TensorDistAttr& dist, DistGeneration generation);
// `{mesh:{shape:[2],process_ids:[0,1]},operand(0):{...},result(0):{...}}`.
std::string writeOpDistAttr(const OpDistAttr& attr, DistGeneration generation);

}  // namespace reshardctl
