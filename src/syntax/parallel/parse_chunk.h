// One chunk of a program's top-level ops parsed on its own thread
// (syntax/parallel_parse.h): the serial parse's actions, with names the
// chunk does not define left to the stitch (syntax/chunk_stitch.h). Defined
// in parser.cpp, beside the actions it runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "ir/source.h"
#include "syntax/graph_builder.h"

namespace reshardctl::parsing {

enum class ChunkKind : uint8_t {
  First,   // from the text's start: the module line and `{`, then op lines
  Middle,  // op lines only
  Last,    // op lines, then the closing `}`
};

struct ChunkSpec {
  size_t begin = 0, end = 0;  // bytes of the source; `begin` is the newline ending an op line (but First)
  ChunkKind kind = ChunkKind::Middle;
  // What the first op line of the program tells (noteTopLevelIndent), for
  // the chunks that do not hold it; the stitch checks the first chunk agrees.
  IndentStyle indent = IndentStyle::PerLevel;
  uint32_t numberHint = 0;  // the first %N the chunk defines, if the split saw it: numbered[0]
  bool recogniseRepeatedAttributes = true;
};

// A chunk as parsed: `failed` when the chunk reported anything or did not
// match its grammar; the serial parse then reads the whole program.
struct ParsedChunk {
  DiagnosticEngine diagnostics;  // the chunk's own: nothing reaches the user's
  ChunkState chunk;
  std::unique_ptr<ParseState> state;
  bool failed = false;
};

// Parses bytes [spec.begin, spec.end) of `source`. Thread-safe for distinct
// chunks of one source: reads the source only, and drops from memory only
// the pages wholly inside its own bytes that it has read (a mapped file's,
// read back by the kernel when needed again; a stream's are kept).
std::unique_ptr<ParsedChunk> parseChunk(SourceFile& source, const ChunkSpec& spec);

}  // namespace reshardctl::parsing
