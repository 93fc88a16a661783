// The two ends every subcommand shares: read + parse + verify a program, and
// write a program out only when the whole run succeeded.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "ir/source.h"

namespace reshardctl {

// Process exit codes (README "Exit codes").
enum ExitCode : int {
  kExitOk = 0,
  kExitBadInput = 1,  // the program is malformed, or a check failed
  kExitUsage = 2,     // bad flags, unreadable input, unwritable output
};

struct LoadedProgram {
  std::unique_ptr<SourceFile> source;
  std::unique_ptr<Program> program;  // nullptr when loading failed
  bool denselyNumbered = true;
  int failure = kExitOk;             // the exit code when program is nullptr
};

// Reads `path` ("-" = stdin), parses and verifies. Diagnostics go to
// `diagnostics`, whose source is set to the loaded file.
LoadedProgram loadProgram(const std::string& path, DiagnosticEngine& diagnostics);

// Writes what `render` prints to `path` ("-" = stdout) atomically; a failed
// write (or `render` returning false) is diagnosed. Returns an exit code.
int writeOutput(const std::string& path, DiagnosticEngine& diagnostics,
                const std::function<bool(std::FILE*)>& render);

// Writes `text` to `path` ("-" = stdout) atomically. Returns an exit code.
int writeTextOutput(const std::string& text, const std::string& path, DiagnosticEngine& diagnostics);

// Prints `program` to `path` ("-" = stdout) atomically. Returns an exit code.
int writeProgram(const Program& program, const std::string& path, DiagnosticEngine& diagnostics);

}  // namespace reshardctl
