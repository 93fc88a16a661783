// A program out of a file, by two calls: readProgramFile reads the file once
// (ir/source.h) and finds the programs in it (program_finder.h);
// loadFoundProgram chooses one (--program's forms), parses it (parser.h) and
// verifies it (ir/verifier.h). Which files a command reads, FILE#N and runs
// over several inputs are the command line's (tool/input_files.h).
//
// --program's forms:
//   N             the Nth program (as `reshardctl list` numbers them)
//   TEXT          the first whose label contains TEXT
//   after:PASS    printed after the pass PASS (before:PASS alike; `after:`
//                 alone: after any pass), as the label says (passStageOf)
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "ir/source.h"
#include "support/exit_code.h"
#include "syntax/program_finder.h"

namespace reshardctl {

// One file, read once: its text and the programs in it, or why it could not
// be read. The reason is told to each diagnostics engine that loads from it
// (reportReadFailure), so each input's work reports it as its own.
struct InputFile {
  std::string path;                    // as named ("-" = standard input)
  std::shared_ptr<SourceFile> source;  // nullptr when it could not be read
  std::vector<FoundProgram> programs;  // none found: the whole file is parsed (and diagnosed)
  int failure = kExitOk;               // the exit code when it could not be read whole
  std::string error;                   // why
  std::optional<size_t> errorAt;       // where reading stopped (too large, endless or binary)
  bool fragment = false;               // --fragment: what is not a braced program is op lines
};

// Reads `file.path` ("-" = stdin) under `options` into `file` and finds its
// programs, one pass, letting the pages the scan passed go until the parser
// reads them again. Never throws for a file that cannot be read (see
// `failure`).
void readProgramFile(InputFile& file, const SourceFile::LoadOptions& options);

// Whether `file` could not be read; if so its reason goes to `diagnostics`.
bool reportReadFailure(const InputFile& file, DiagnosticEngine& diagnostics);

struct LoadedProgram {
  std::shared_ptr<SourceFile> source;  // the whole file: locations are offsets into it
  std::unique_ptr<Program> program;    // nullptr when loading failed
  bool denselyNumbered = true;
  int failure = kExitOk;               // the exit code when program is nullptr
  size_t begin = 0, end = 0;           // the program's bytes in the file
  size_t index = 0;                    // its number in a file holding several programs; 0 when the file holds one

  bool wholeFile() const { return begin == 0 && end == source->text().size(); }
};

// Which program of a file to load.
struct ProgramChoice {
  size_t index = 0;      // N (from 1) when the file's programs are taken in turn; 0: by `selector`
  std::string selector;  // --program as given; "" = the file's only program
};

// The program `choice` names in `file`, parsed and verified: its read
// failure, a usage error listing the programs when the choice names none (or
// none was made among several), the parse's and the verifier's diagnostics
// go to `diagnostics`, whose source is set to the file. A file in which no
// program was found is parsed whole, so a broken dump is diagnosed.
LoadedProgram loadFoundProgram(const InputFile& file, const ProgramChoice& choice, DiagnosticEngine& diagnostics);

// Whether `selector` (one of --program's forms) selects `program`, the
// `number`th (from 1) of its file.
bool selectsProgram(const FoundProgram& program, size_t number, const std::string& selector);
// Whether `text` is --program's form N (an index).
bool isProgramIndex(const std::string& text);

// What `list` adds to a program's line.
struct ProgramReshards {
  bool loaded = false;   // false: the program could not be parsed, or was not (its columns show "-")
  bool skipped = false;  // not parsed: the file ends inside it
  size_t existing = 0;  // dist_op.reshard ops it holds
  size_t needed = 0;    // reshards `apply` would insert
  double estUs = 0;     // their plans' estimated cost
};

// One line per program (`reshardctl list`, and the usage error of a choice
// that names none); with `reshards` (one per program) three more columns.
std::string formatProgramTable(const std::vector<FoundProgram>& programs,
                               const std::vector<ProgramReshards>* reshards = nullptr);

}  // namespace reshardctl
