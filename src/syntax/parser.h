// Text → SSA graph in one pass: the PEGTL grammar (grammar/pir_grammar.h)
// drives actions that create ops, values and uses as they are read.
#pragma once

#include <memory>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "ir/source.h"

namespace reshardctl {

struct ParseResult {
  std::unique_ptr<Program> program;  // nullptr when there was an error
  // True when every value is named %0, %1, ... in definition order (and
  // block arguments %arg_0, ...), as Paddle prints: a reprint is then
  // byte-identical. Otherwise the printer renumbers.
  bool denselyNumbered = true;
  // How many chunks the text was parsed in (syntax/parallel/parallel_parse.h);
  // 1: serially.
  size_t chunks = 1;
};

struct ParseOptions {
  // Recognise an attribute dictionary or op_dist_attr value a dump repeats by
  // comparing bytes (syntax/attribute_dictionary.h). Off only to test that it
  // changes nothing.
  bool recogniseRepeatedAttributes = true;
  // --fragment: text that is not a braced program is op lines (docs/format.md,
  // "Fragments"); values used and not defined are its external inputs.
  bool fragment = false;
  // Threads for the parse (syntax/parallel/parallel_parse.h): 0 asks
  // support/parallel_jobs.h (-j, RESHARDCTL_JOBS, else all cores above a
  // size); 1 reads serially.
  unsigned jobs = 0;
  // Tests: cut the program into chunks of this many top-level ops, however
  // small (0: as many chunks as threads, cut by size).
  size_t opsPerChunk = 0;
};

// Problems go to `diagnostics` (the parse goes on after semantic errors to
// report several at once; a syntax error ends it).
ParseResult parseProgram(SourceFile& source, DiagnosticEngine& diagnostics);

// Parses the program held in bytes [begin, end) of `source` (one program of a
// log, program_finder.h). Locations stay offsets into the whole file, so
// diagnostics name the log's own lines.
ParseResult parseProgram(SourceFile& source, DiagnosticEngine& diagnostics, size_t begin, size_t end);
ParseResult parseProgram(SourceFile& source, DiagnosticEngine& diagnostics, size_t begin, size_t end,
                         const ParseOptions& options);

}  // namespace reshardctl
