// Which of Paddle's print generations a dump uses, and how a program writes
// new dist text. The program records these from its input (the syntax stage
// detects them) so that ops a pass creates print like the ops around them.
#pragma once

#include <cstdint>
#include <string_view>

namespace reshardctl {

// Which of Paddle's print generations a dump uses (docs/format.md, "Print eras").
// Each was checked against Paddle's printer for that era; the writers in
// syntax/dist_attr_text.cpp name the file.
enum class DistGeneration : uint8_t {
  A,  // March-April 2024: `dims_maping` entries, ids only on the op mesh
  C,  // mid 2024: process ids in types; every entry printed in full
  D,  // late 2024: as C plus `,chunk_id:N`, optional `, placements:[..]`
  E,  // Dec 2024 on: as D; attribute prefixes and `builtin.` dropped elsewhere
};

std::string_view generationName(DistGeneration generation);  // "A", "C", ...

// How new dist text is written: the generation, and whether layouts carry
// `placements:` (some D/E dumps print them for every layout, older D dumps
// only for a few). Placements are printed only in D and E.
struct DistWriteStyle {
  DistWriteStyle(DistGeneration g = DistGeneration::A, bool withPlacements = false)  // NOLINT: implicit
      : generation(g), placements(withPlacements) {}
  DistGeneration generation;
  bool placements;
};

}  // namespace reshardctl
