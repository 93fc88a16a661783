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
// Each was checked against Paddle's printer for that era (notes in
// /work/notes/paddle-printers.md section 2); the writers below name the file.
enum class DistGeneration : uint8_t {
  A,  // March-April 2024: `dims_maping` entries, ids only on the op mesh
  C,  // mid 2024: process ids in types; every entry printed in full
  D,  // late 2024: as C plus `,chunk_id:N`, optional `, placements:[..]`
  E,  // Dec 2024 on: as D; attribute prefixes and `builtin.` dropped elsewhere
};

std::string_view generationName(DistGeneration generation);  // "A", "C", ...

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

// How new dist text is written: the generation, and whether layouts carry
// `placements:` (some D/E dumps print them for every layout, older D dumps
// only for a few). Placements are printed only in D and E.
struct DistWriteStyle {
  DistWriteStyle(DistGeneration g = DistGeneration::A, bool withPlacements = false)  // NOLINT: implicit
      : generation(g), placements(withPlacements) {}
  DistGeneration generation;
  bool placements;
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
