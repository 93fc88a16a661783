// One entry point per subcommand. src/cli.cpp maps the command line onto
// these option structs; each returns the process exit code (program_io.h).
#pragma once

#include <string>

namespace reshardctl {

struct ApplyOptions {
  std::string input = "-";
  std::string output = "-";
  bool splitCrossMesh = false;  // PartitionOptions (partition_pass.h)
  bool fold = false;
  bool dedupe = false;
  bool reshardResults = false;
};
int runApply(const ApplyOptions& options);

struct PrintOptions {
  std::string input = "-";
  std::string output = "-";
};
int runPrint(const PrintOptions& options);

struct VerifyOptions {
  std::string input = "-";
  bool werror = false;  // warnings fail the run (exit 1)
  bool quiet = false;   // do not print warnings
};
int runVerify(const VerifyOptions& options);

}  // namespace reshardctl
