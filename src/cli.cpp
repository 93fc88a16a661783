#include "cli.h"

#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "program_io.h"

namespace reshardctl {

namespace {

constexpr const char* kVersion = "reshardctl 0.1.0";

void addInputOutput(CLI::App& command, std::string& input, std::string& output) {
  command.add_option("input", input, "Program dump to read ('-' = standard input)")
      ->default_str("-");
  command.add_option("-o,--output", output, "Where to write ('-' = standard output)")
      ->default_str("-");
}

}  // namespace

int runCli(int argc, char** argv) {
  CLI::App app{"reshardctl: read Paddle PIR dumps of distributed programs, insert the reshards "
               "the partition pass needs, print them back exactly as Paddle does."};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  reshardctl apply samples/seed_mlp_before.ir -o after.ir\n"
      "  reshardctl print dump.ir | diff dump.ir -\n"
      "  reshardctl diff before.ir after.ir --ignore-attr op_role\n"
      "Exit codes: 0 success, 1 bad input (diagnostics on stderr), 2 bad usage or I/O error.");

  ApplyOptions apply;
  CLI::App* applyCommand =
      app.add_subcommand("apply", "Run the partition pass: insert dist_op.reshard where an "
                                  "operand's layout differs from what its op needs");
  addInputOutput(*applyCommand, apply.input, apply.output);
  applyCommand->add_flag("--check", apply.check,
                         "Write nothing; list the reshards the pass would insert and exit 1 if any");
  applyCommand->add_flag("-i,--in-place", apply.inPlace, "Write the result back to the input file")
      ->excludes("--output");

  PrintOptions print;
  CLI::App* printCommand =
      app.add_subcommand("print", "Parse, verify and print the program back (renumbering it)");
  addInputOutput(*printCommand, print.input, print.output);
  printCommand->add_option("--emit", print.emit, "Output format: ir (the dump) or json")
      ->check(CLI::IsMember({"ir", "json"}))
      ->default_str("ir");

  DiffCommandOptions diff;
  CLI::App* diffCommand = app.add_subcommand(
      "diff", "Compare two programs by structure (renumbering is no difference); "
              "exit 0 equal, 1 different, 2 trouble");
  diffCommand->add_option("before", diff.before, "The old program")->required();
  diffCommand->add_option("after", diff.after, "The new program")->required();
  diffCommand->add_option("--ignore-attr", diff.ignoredAttributes,
                          "Leave this attribute out of the comparison (repeatable)")
      ->allow_extra_args(false);  // one name per flag, so inputs after it stay positional
  diffCommand->add_flag("--stat", diff.stat, "Print only a summary line");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  if (applyCommand->parsed()) return runApply(apply);
  if (printCommand->parsed()) return runPrint(print);
  if (diffCommand->parsed()) return runDiff(diff);
  return kExitUsage;
}

}  // namespace reshardctl
