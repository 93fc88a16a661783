// One entry point per subcommand. src/cli.cpp maps the command line onto
// these option structs; each returns the process exit code (program_io.h).
#pragma once

#include <string>
#include <vector>

namespace reshardctl {

struct ApplyOptions {
  std::string input = "-";
  std::string output = "-";
  bool check = false;    // write nothing; list what would be inserted, exit 1 if anything
  bool inPlace = false;  // write the result back to the input file
};
int runApply(const ApplyOptions& options);

struct PrintOptions {
  std::string input = "-";
  std::string output = "-";
  std::string emit = "ir";  // "ir" (the dump) or "json" (json_export.h)
};
int runPrint(const PrintOptions& options);

// Exits as diff(1): 0 equal, 1 different, 2 trouble (unreadable or bad input).
struct DiffCommandOptions {
  std::string before;
  std::string after;
  std::vector<std::string> ignoredAttributes;
  bool stat = false;  // only the summary line
};
int runDiff(const DiffCommandOptions& options);

}  // namespace reshardctl
