// Reading and writing the text forms of distribution attributes: the dist
// part of a `pd_dist.tensor<...>` type and the value of `op_dist_attr`.
// Reading follows grammar/dist_grammar.h; writing follows Paddle's printer
// for the dump's generation (docs/format.md, "Print eras").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dist_attr.h"
#include "ir/dist_generation.h"

namespace reshardctl {

// What the dist text of a dump looked like, gathered while it is read (each
// distinct text is read once, so this costs nothing per op).
struct DistTextStyle {
  bool entryDimsMaping = false;  // `dims_maping` (sic) entries: generation A
  bool fullEntries = false;      // entries with process_ids: C and later
  bool typeIds = false;          // process_ids inside pd_dist types: C and later
  bool typeWithoutIds = false;   // a pd_dist type without process_ids: A
  bool chunkId = false;          // `,chunk_id:N`: D and later
  bool placements = false;       // `placements:[..]`: D and later
  bool typeWithoutPlacements = false;  // a pd_dist type without them

  void merge(const DistTextStyle& other);
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
// `style`, when given, collects what the text looked like.
TensorTypeBody readTensorTypeBody(std::string_view text, size_t offset,
                                  DistTextStyle* style = nullptr);
OpDistAttr readOpDistAttr(std::string_view text, size_t offset, DistTextStyle* style = nullptr);

// `mesh_shape:[2],dims_mappings:[-1,-1], partial(0,SUM)`: the dist part of a type.
std::string writeTypeDist(const TensorDistAttr& dist, const DistWriteStyle& style);
// `{mesh:{shape:[2],process_ids:[0,1]},operand(0):{...},result(0):{...}}`.
std::string writeOpDistAttr(const OpDistAttr& attr, const DistWriteStyle& style);

}  // namespace reshardctl
