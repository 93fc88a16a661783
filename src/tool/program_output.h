// The other end of every subcommand: what it writes, published only when the
// whole of it was written (support/output_file.h). Loading is input_files.h.
#pragma once

#include <functional>
#include <string>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "ir/source.h"
#include "support/output_sink.h"
#include "tool/input_files.h"

namespace reshardctl {

// Writes what `render` prints to `path` ("-" = stdout) atomically; a failed
// write (or `render` returning false) is diagnosed with its reason. Returns an
// exit code.
int writeOutput(const std::string& path, DiagnosticEngine& diagnostics,
                const std::function<bool(OutputSink&)>& render);

// As writeOutput, for a render that can also fail for a reason of its own,
// already diagnosed: it returns that exit code (kExitOk when it succeeded),
// and then the output is abandoned, nothing published and no write error added.
int writeOutputUnlessFailed(const std::string& path, DiagnosticEngine& diagnostics,
                            const std::function<int(OutputSink&)>& render);

// Whether output to `path` is published only when complete: a regular file,
// or one not there yet, written through a temporary file and renamed.
// Standard output ("-", /dev/stdout, /dev/fd/N), a fifo or a device shows
// each byte as it is written.
bool publishedWhole(const std::string& path);

// Writes `text` to `path` ("-" = stdout) atomically. Returns an exit code.
int writeTextOutput(const std::string& text, const std::string& path, DiagnosticEngine& diagnostics);

// Prints `program` to `path` ("-" = stdout) atomically. Returns an exit code.
int writeProgram(const Program& program, const std::string& path, DiagnosticEngine& diagnostics);

// The file `loaded` came from with its program's lines replaced by `program`
// printed, the rest byte-identical: what --in-place writes, and what
// apply --diff compares with. Named as `loaded`'s source; held as a stream
// is (ir/stream_buffer.h), but past 1 MiB in an unlinked temporary file,
// mapped, so that its pages can leave memory once read. Throws Failure (Io)
// where neither that file nor memory can hold it.
SourceFile fileWithProgram(const Program& program, const LoadedProgram& loaded);

// Writes that text over `path`, where `loaded` came from (`--in-place`).
int writeProgramInPlace(const Program& program, const LoadedProgram& loaded, const std::string& path,
                        DiagnosticEngine& diagnostics);

}  // namespace reshardctl
