// Which files a run reads: the inputs named on the command line, where a
// directory given with -r/--recursive stands for the files beneath it whose
// names match *.ir, *.log or the --glob patterns. One mechanism for every
// subcommand that takes several inputs: a command adds the flags with
// addInputFlags() and runs its per-file work through forEachInput().
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace reshardctl {

class Reporter;

struct InputSelection {
  std::vector<std::string> paths = {"-"};  // as given; "-" is standard input
  bool recursive = false;
  std::vector<std::string> globs;  // file-name patterns under -r; empty = *.ir and *.log
};

// The positional `inputs...` (default '-'), -r/--recursive and --glob.
void addInputFlags(CLI::App& command, InputSelection& inputs);

// The files, in order: each path as given, and for each directory (with
// -r) the matching regular files beneath it in sorted order, hidden
// directories (.git, ...) skipped. False with a message when a directory
// comes without -r, "-" is given twice, or a directory cannot be walked.
// A directory holding no matching file adds nothing.
bool expandInputs(const InputSelection& inputs, std::vector<std::string>* files, std::string* error);

// What one file's run ended with.
struct InputOutcome {
  int status = 0;       // its exit code
  std::string summary;  // its summary line, "ok", "2 warnings", ...
};

using InputWork = std::function<InputOutcome(const std::string& path)>;

// expandInputs, with its error (or a warning that nothing matched) reported.
bool expandInputs(const InputSelection& inputs, Reporter& reporter, std::vector<std::string>* files);

// Runs `each` on every file. With more than one file, each file's summary is
// written to `summaries` as "FILE: summary". Returns the worst (highest)
// status of all files.
int forEachFile(const std::vector<std::string>& files, Reporter& reporter, std::FILE* summaries,
                const InputWork& each);

// Both: the one-line way for a command. 2 when the inputs cannot be expanded.
int forEachInput(const InputSelection& inputs, Reporter& reporter, std::FILE* summaries, const InputWork& each);

}  // namespace reshardctl
