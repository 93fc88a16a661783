// A large program parsed on several threads: its top-level ops cut at op
// lines into chunks, each chunk parsed on its own (parse_chunk.h) and the
// chunks stitched into the graph one parse of the whole text builds
// (chunk_stitch.h): the same ops, values, ids, types, use lists and layout,
// so the same bytes print. Only a program the chunks read cleanly is
// stitched: whenever a chunk reports anything, or the split or the stitch
// meets anything the serial parse might read differently, the caller parses
// serially, and the diagnostics are that parse's.
#pragma once

#include <cstddef>
#include <optional>

#include "ir/source.h"
#include "syntax/parser.h"

namespace reshardctl {

// Below this many bytes a program is parsed serially unless -j asks
// otherwise: starting threads and stitching cost more than they save.
inline constexpr size_t kParallelParseBytes = size_t{4} << 20;

// The parse of `source`'s bytes [begin, end) in chunks, or nullopt when the
// text is parsed serially: one thread, a fragment, no op-line structure the
// split recognises, or anything a chunk or the stitch was unsure of.
// `source` must hold the program's own text (no log frame, text_frame.h).
std::optional<ParseResult> parseInParallel(SourceFile& source, size_t begin, size_t end, const ParseOptions& options);

}  // namespace reshardctl
