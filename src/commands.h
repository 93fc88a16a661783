// One entry point per subcommand. src/cli.cpp maps the command line onto
// these option structs; each returns the process exit code (program_io.h).
#pragma once

#include <string>

namespace reshardctl {

struct ApplyOptions {
  std::string input = "-";
  std::string output = "-";
};
int runApply(const ApplyOptions& options);

struct PrintOptions {
  std::string input = "-";
  std::string output = "-";
};
int runPrint(const PrintOptions& options);

}  // namespace reshardctl
