// The command line: subcommands and their flags (CLI11), dispatched to
// commands.h. main() is only `return runCli(argc, argv);`.
#pragma once

namespace reshardctl {

int runCli(int argc, char** argv);

}  // namespace reshardctl
