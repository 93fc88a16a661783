// The two ends every subcommand shares: read + parse + verify a program, and
// write a program out only when the whole run succeeded.
//
// A file may hold several programs among other lines (a training log, one
// program per pass): syntax/program_finder.h finds them, `--program N|TEXT`
// chooses one (1-based index, or the first whose label contains TEXT), and a
// file of several programs without a choice is a usage error that lists them.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "ir/source.h"
#include "support/output_sink.h"
#include "syntax/program_finder.h"
#include "tool/input_files.h"

namespace reshardctl {

// Process exit codes (README "Exit codes").
enum ExitCode : int {
  kExitOk = 0,
  kExitBadInput = 1,  // the program is malformed, or a check failed
  kExitUsage = 2,     // bad flags, unreadable input, unwritable output
};

struct LoadedProgram {
  std::shared_ptr<SourceFile> source;  // the whole file: locations are offsets into it
  std::unique_ptr<Program> program;    // nullptr when loading failed
  bool denselyNumbered = true;
  int failure = kExitOk;               // the exit code when program is nullptr
  size_t begin = 0, end = 0;           // the program's bytes in the file
  size_t index = 0;                    // its number in a file holding several programs; 0 when the file holds one
};

// Reads `path` ("-" = stdin), finds the program `selector` names ("" = the
// only one; see above), parses and verifies it. Diagnostics go to
// `diagnostics`, whose source is set to the loaded file.
LoadedProgram loadProgram(const std::string& path, DiagnosticEngine& diagnostics,
                          const std::string& selector = "");

// The same in two steps, for reading two programs of one file (`diff`).
// readSourceFile returns nullptr when the file cannot be read; a file cut at
// the size limit or at binary data comes back with *failure set and its
// error reported (the diagnostics point into it: keep it while they live).
std::shared_ptr<SourceFile> readSourceFile(const std::string& path, DiagnosticEngine& diagnostics,
                                           int* failure);
LoadedProgram loadProgramFrom(std::shared_ptr<SourceFile> source, DiagnosticEngine& diagnostics,
                              const std::string& selector);

// The programs of `source` (program_finder.h). The scan reads the whole file
// once; the pages it passed are let go rather than kept resident until the
// parser reads them again.
std::vector<FoundProgram> findProgramsIn(SourceFile& source);

// One input of a run over several (input_files.h): the program it names,
// parsed from the file the input layer read, or read here.
LoadedProgram loadProgram(const InputProgram& input, DiagnosticEngine& diagnostics);

// One line per program (`reshardctl list`, and the usage error above).
std::string formatProgramTable(const std::vector<FoundProgram>& programs);

// Writes `program` back over where `loaded` came from (`--in-place`): the
// whole file, or in a log only that program's lines, the rest byte-identical.
int writeProgramInPlace(const Program& program, const LoadedProgram& loaded, const std::string& path,
                        DiagnosticEngine& diagnostics);

// The file `loaded` came from with its program's lines replaced by `program`
// printed: what --in-place writes, and what apply --diff compares with.
std::string fileTextWithProgram(const Program& program, const LoadedProgram& loaded);
// Writes what `render` prints to `path` ("-" = stdout) atomically; a failed
// write (or `render` returning false) is diagnosed with its reason. Returns an
// exit code.
int writeOutput(const std::string& path, DiagnosticEngine& diagnostics,
                const std::function<bool(OutputSink&)>& render);

// Writes `text` to `path` ("-" = stdout) atomically. Returns an exit code.
int writeTextOutput(const std::string& text, const std::string& path, DiagnosticEngine& diagnostics);

// Prints `program` to `path` ("-" = stdout) atomically. Returns an exit code.
int writeProgram(const Program& program, const std::string& path, DiagnosticEngine& diagnostics);

}  // namespace reshardctl
