// Which programs a run reads: the inputs named on the command line, where a
// directory given with -r/--recursive stands for the files beneath it whose
// names match *.ir, *.log or the --glob patterns. One mechanism for every
// subcommand that takes several inputs: a command adds the flags with
// addInputFlags() and runs its per-input work through forEachInput().
//
// A file may hold several programs (a training log). `--program` chooses one
// in every file. Without it, a run over several inputs (or -r) takes each
// program of such a file in turn, as if each were an input of its own, named
// FILE#N (N as `reshardctl list` numbers them and `--program N` chooses);
// a run over one file asks which (program_io.h), as do commands that cannot
// take a file's programs one at a time (apply --in-place).
#pragma once

#include <cstddef>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ir/source.h"
#include "support/output_sink.h"
#include "syntax/program_finder.h"

namespace reshardctl {

class Reporter;

struct InputSelection {
  std::vector<std::string> paths = {"-"};  // as given; "-" is standard input
  bool recursive = false;
  std::vector<std::string> globs;  // file-name patterns under -r; empty = *.ir and *.log
  std::string program;             // --program N|TEXT, where the command takes it; "" = none given
};

// The positional `inputs...` (default '-'), -r/--recursive and --glob.
void addInputFlags(CLI::App& command, InputSelection& inputs,
                   const char* help = "Program dumps or logs to read ('-' = standard input, the default); "
                                      "with -r, directories too");

// The files, in order: each path as given, and for each directory (with
// -r) the matching regular files beneath it in sorted order, hidden
// directories (.git, ...) skipped. False with a message when a directory
// comes without -r, "-" is given twice, or a directory cannot be walked.
// A directory holding no matching file adds nothing.
bool expandInputs(const InputSelection& inputs, std::vector<std::string>* files, std::string* error);

// expandInputs, with its error (or a warning that nothing matched) reported.
bool expandInputs(const InputSelection& inputs, Reporter& reporter, std::vector<std::string>* files);

// One input of a command's work: a file, or one program of a file whose
// programs are taken in turn.
struct InputProgram {
  std::string path;      // the file as named ("-" = standard input)
  std::string selector;  // --program as given; "" = the file's only program
  std::string name;      // how summary lines name it: the path, or "path#N"
  size_t index = 0;      // N when the file's programs are taken in turn, else 0
  bool oneOfSeveral = false;  // the run reads other inputs too: what it prints for this one names it
  // Set when the input layer has read the file already (to count its
  // programs): the work must not read it again (it may be standard input).
  std::shared_ptr<SourceFile> source;
  std::optional<FoundProgram> found;  // with `source`: the program to parse (none: the whole file)
};

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
};

// Runs `each` on every input of `files`. With more than one, each input's
// summary is written to `summaries` as "NAME: summary".
InputRun forEachFile(const std::vector<std::string>& files, const InputSelection& inputs, Reporter& reporter,
                     OutputSink& summaries, const InputWork& each,
                     SeveralPrograms several = SeveralPrograms::InTurn);

// Both: the one-line way for a command. Status 2 when the inputs cannot be
// expanded.
InputRun forEachInput(const InputSelection& inputs, Reporter& reporter, OutputSink& summaries, const InputWork& each,
                      SeveralPrograms several = SeveralPrograms::InTurn);

}  // namespace reshardctl
