// Chunks of a program's top-level ops, each parsed on its own
// (parse_chunk.h), stitched into the graph the serial parse builds: the
// chunks' numbering checked to continue one another, the names a chunk used
// and did not define resolved to the earlier chunks' values and linked in
// the serial parse's order, the later chunks' programs joined to the first
// (ir/clone/program_join.h) with their dist attrs equal to an earlier
// chunk's replaced by that one (one per text, as the serial parse keeps, so
// the partition pass's memo finds them), the print generation judged from every chunk's
// text. Gives up (nullptr) on anything the serial parse would report or
// might read differently; the caller then parses serially.
#pragma once

#include <memory>
#include <vector>

#include "ir/ir.h"
#include "syntax/parallel/parse_chunk.h"

namespace reshardctl::parsing {

// `indent`: what the split told the chunks after the first of the layout.
std::unique_ptr<Program> stitchChunks(std::vector<std::unique_ptr<ParsedChunk>>& chunks, IndentStyle indent);

}  // namespace reshardctl::parsing
