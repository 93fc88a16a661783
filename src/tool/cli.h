// The command line: a table of subcommands (cli.cpp) and the flags common to
// all. Each subcommand's file (`apply_command.cpp`, ...) exports one row
// that defines its flags and returns its runner, so running one subcommand
// builds only its own flags. main() is only `return runCli(argc, argv);`.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace reshardctl {

class Reporter;
struct ReportingOptions;

// Runs a parsed subcommand: its exit code (support/exit_code.h), or it throws
// a Failure (support/failure.h); its diagnostics go
// through `reporter`.
using SubcommandRunner = std::function<int(Reporter& reporter)>;

// One row of the table.
struct SubcommandSpec {
  const char* name;
  const char* summary;  // its line in `reshardctl --help`
  // Adds the subcommand's flags to `command`, bound to options the returned
  // runner owns; the diagnostics flags fill the one `reporting` of the run.
  SubcommandRunner (*define)(CLI::App& command, ReportingOptions& reporting);
};

extern const SubcommandSpec kApplySubcommand;
extern const SubcommandSpec kPrintSubcommand;
extern const SubcommandSpec kDiffSubcommand;
extern const SubcommandSpec kPlanSubcommand;
extern const SubcommandSpec kVerifySubcommand;
extern const SubcommandSpec kRunSubcommand;
extern const SubcommandSpec kListSubcommand;
extern const SubcommandSpec kValidateSubcommand;
extern const SubcommandSpec kLowerSubcommand;
extern const SubcommandSpec kScheduleSubcommand;
extern const SubcommandSpec kCheckPassSubcommand;

int runCli(int argc, char** argv);

}  // namespace reshardctl
