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
      "  reshardctl verify --werror dump.ir\n"
      "Exit codes: 0 success, 1 bad input (diagnostics on stderr), 2 bad usage or I/O error.");

  ApplyOptions apply;
  CLI::App* applyCommand =
      app.add_subcommand("apply", "Run the partition pass: insert dist_op.reshard where an "
                                  "operand's layout differs from what its op needs");
  addInputOutput(*applyCommand, apply.input, apply.output);
  applyCommand->add_flag("--split-cross-mesh", apply.splitCrossMesh,
                         "A change of mesh and layout becomes two reshards: to the destination "
                         "mesh keeping the layout, then the layout change (decompose_reshard_pass)");
  applyCommand->add_flag("--fold", apply.fold,
                         "Reshard a reshard's result from that reshard's input; remove reshards "
                         "left without uses");
  applyCommand->add_flag("--dedupe", apply.dedupe,
                         "One reshard per (value, destination layout) instead of one per use");
  applyCommand->add_flag("--reshard-results", apply.reshardResults,
                         "A result whose type disagrees with its op_dist_attr entry takes the "
                         "entry's layout; a reshard back to the old layout follows the op");

  PrintOptions print;
  CLI::App* printCommand =
      app.add_subcommand("print", "Parse, verify and print the program back (renumbering it)");
  addInputOutput(*printCommand, print.input, print.output);

  VerifyOptions verify;
  CLI::App* verifyCommand = app.add_subcommand(
      "verify", "Check a program: the load-time errors plus warnings (uneven shards, extra "
                "entries, dense operands of dist ops, meshes known only by shape)");
  verifyCommand->add_option("input", verify.input, "Program dump to read ('-' = standard input)")
      ->default_str("-");
  verifyCommand->add_flag("--werror", verify.werror, "Exit 1 when there are warnings");
  verifyCommand->add_flag("--quiet", verify.quiet, "Do not print warnings");

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
  if (verifyCommand->parsed()) return runVerify(verify);
  return kExitUsage;
}

}  // namespace reshardctl
