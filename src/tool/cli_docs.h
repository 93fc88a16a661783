// The man page and the shell completion scripts, written from the same CLI11
// definition as --help (cli.cpp), so they cannot fall out of step with it.
// The build runs `reshardctl --generate=man|bash|zsh` (cmake/install.cmake);
// `cmake --install` installs the results.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "support/output_sink.h"

namespace reshardctl {

std::string manPage(const CLI::App& app);         // reshardctl.1, roff
std::string bashCompletion(const CLI::App& app);  // for bash-completion
std::string zshCompletion(const CLI::App& app);   // _reshardctl

// What --generate writes.
enum class CliDocument {
  None,  // nothing: --generate was not given
  Man,
  Bash,
  Zsh,
};

// False when it cannot be written.
bool writeCliDocument(const CLI::App& app, CliDocument kind, OutputSink& out);

}  // namespace reshardctl
