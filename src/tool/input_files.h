// How every subcommand gets its programs, by one path: name the files (the
// inputs as given; with -r/--recursive a directory stands for the files
// beneath it matching *.ir, *.log or --glob) → read each file once and find
// its programs → choose → parse and verify (the last four behind
// syntax/program_loading.h's two calls).
//
// A file may hold several programs among other lines (a training log, one
// program per pass). `--program` selects by number, label or pass:
//   N             the Nth (as `reshardctl list` numbers them)
//   TEXT          those whose label contains TEXT
//   after:PASS    those printed after the pass PASS (before:PASS alike;
//                 `after:` alone: after any pass), as the label says
//                 (syntax/program_loading.h)
// An input named FILE#N is program N of FILE (unless a file of that very
// name exists), as summaries name it, so any name the tool prints can be
// given back to it; --program cannot be added to it.
//
// A run over one input (no -r): --program chooses the first program it
// selects, and a file of several programs without --program is a usage error
// that lists them. A run over several inputs (or -r): each file's programs
// are taken in turn as inputs of their own, named FILE#N; --program filters
// them (every program it selects, not only the first), and a file with none
// selected is skipped with a note, as is a file in which no program is found
// (a worker log), unless it is named *.ir or is standard input: that is
// parsed whole, so a broken dump is diagnosed. A command that writes each
// file back (apply --in-place) or reads files, not programs (list), takes
// each file whole instead (SeveralPrograms::WholeFile).
//
// Writing a program out is program_output.h.
#pragma once

#include <cstddef>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "ir/source.h"
#include "support/exit_code.h"
#include "support/output_sink.h"
#include "syntax/program_loading.h"

namespace reshardctl {

class Reporter;

struct InputSelection {
  std::vector<std::string> paths = {"-"};  // as given; "-" is standard input
  bool recursive = false;
  std::vector<std::string> globs;  // file-name patterns under -r; empty = *.ir and *.log
  std::string program;             // --program N|TEXT, where the command takes it; "" = none given
  bool fragment = false;           // --fragment: op lines without braces (docs/format.md, "Fragments")
};

// --fragment, on every command that reads programs (docs/format.md, "Fragments").
void addFragmentFlag(CLI::App& command, bool& fragment);

// The positional `inputs...` (default '-'), -r/--recursive, --glob and --fragment.
void addInputFlags(CLI::App& command, InputSelection& inputs,
                   const char* help = "Program dumps or logs to read ('-' = standard input, the default); "
                                      "with -r, directories too");

// The files, in order: each path as given, and for each directory (with
// -r) the matching regular files beneath it in sorted order, hidden
// directories (.git, ...) skipped, walked with a stack (memory linear in the
// depth). Beneath a directory no directory link is followed, a file link
// only to a regular file inside the tree, and nothing special (FIFOs,
// devices, files of /proc and /sys) is read; a path named as given is read
// whatever it is. A directory that cannot be read follows the files, as an
// input whose reading fails (exit 2, as an unreadable file named). Throws a
// usage Failure (support/failure.h) when a directory comes without -r or "-"
// is given twice. A directory holding no matching file adds nothing.
std::vector<std::string> expandInputs(const InputSelection& inputs);
// The same, warning through `reporter` when nothing matched.
std::vector<std::string> expandInputs(const InputSelection& inputs, Reporter& reporter);

// Reads `path` ("-" = stdin) and finds its programs
// (syntax/program_loading.h readProgramFile), under RESHARDCTL_MAX_INPUT;
// never throws for a file that cannot be read (see `failure`).
std::shared_ptr<const InputFile> readInput(const std::string& path, bool fragment = false);

// One input of a command's work: a file, or one program of a file whose
// programs are taken in turn.
struct InputProgram {
  std::string path;      // the file as named ("-" = standard input)
  std::string selector;  // --program as given; "" = the file's only program
  std::string name;      // how summary lines name it: the path, or "path#N"
  size_t index = 0;      // N when the file's programs are taken in turn, else 0
  bool oneOfSeveral = false;  // the run reads other inputs too: what it prints for this one names it
  std::shared_ptr<const InputFile> file;  // read already: the work must not read it again (it may be stdin)

  // The program `selector` names in `file`, as its only input.
  static InputProgram chosen(std::shared_ptr<const InputFile> file, const std::string& selector);
};

// The program `input` names, parsed and verified
// (syntax/program_loading.h loadFoundProgram). Diagnostics go to
// `diagnostics`, whose source is set to the loaded file.
LoadedProgram loadProgram(const InputProgram& input, DiagnosticEngine& diagnostics);
// An input's name split: FILE#N gives {FILE, N}; any other name {name, 0}.
struct ProgramName {
  std::string file;
  size_t number = 0;
};
ProgramName programNameOf(const std::string& path);

// The same for one input named on its own (FILE#N too): readInput, then
// loadProgram. Throws a usage Failure for FILE#N with a selector.
LoadedProgram loadProgram(const std::string& path, DiagnosticEngine& diagnostics,
                          const std::string& selector = "", bool fragment = false);

// What one input's run ended with.
struct InputOutcome {
  int status = 0;       // its exit code
  std::string summary;  // its summary line, "ok", "2 warnings", ...
};

using InputWork = std::function<InputOutcome(const InputProgram& input)>;

// Whether a file of several programs read without --program is taken
// program by program (in a run over several inputs or -r), or is one input
// whole: for commands that write each file back (apply --in-place, where
// --program must choose) or read files, not programs (list).
enum class SeveralPrograms { InTurn, WholeFile };

// What a run over the inputs did.
struct InputRun {
  int status = 0;       // the worst (highest) exit code of all inputs
  size_t files = 0;     // files read
  size_t programs = 0;  // inputs worked on: one per file, or one per program of a file taken in turn
  size_t skipped = 0;   // files that gave no input (no program in them, none selected)
};

// Where summary lines go (standardError, standardOutput), asked for only
// when one is written: a run that writes none never makes that sink.
using SummarySink = std::function<OutputSink&()>;

// Reads each of `files` (expandInputs) once and runs `each` on its inputs.
// With more than one, or under -r, each input's summary is written to
// `summaries` as "NAME: summary", and each file skipped as "NAME: skipped
// (why)"; a warning when every file was skipped.
InputRun forEachInput(const std::vector<std::string>& files, const InputSelection& inputs, Reporter& reporter,
                      const SummarySink& summaries, const InputWork& each,
                      SeveralPrograms several = SeveralPrograms::InTurn);

}  // namespace reshardctl
