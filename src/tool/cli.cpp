#include "tool/cli.h"

#include <cstdio>
#include <exception>
#include <memory>
#include <sstream>
#include <new>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "support/escape.h"
#include "support/exit_code.h"
#include "support/failure.h"
#include "support/output_sink.h"
#include "tool/cli_docs.h"
#include "tool/cli_support.h"
#include "tool/reporting.h"

namespace reshardctl {

namespace {

// What is said before a Reporter exists (usage errors): straight to standard error.
// Usage errors quote the arguments they refuse, which may be file names a CI
// job passed on: escaped for the terminal as every diagnostic is.
void writeError(const std::string& text) {
  standardError() += terminalText(text);
  standardError().flush();
}

// CLI11 writes help and version text to streams: they go out through the sinks.
int exitThroughSinks(const CLI::App& app, const CLI::Error& e) {
  std::ostringstream out, err;
  const int code = app.exit(e, out, err);
  standardOutput() += wrapHelpText(out.str(), helpWidth());
  standardOutput().flush();
  writeError(err.str());
  return code;
}

// The table, in the order `reshardctl --help` lists the subcommands.
constexpr const SubcommandSpec* kSubcommands[] = {
    &kApplySubcommand,  &kPrintSubcommand, &kDiffSubcommand, &kPlanSubcommand,
    &kVerifySubcommand, &kRunSubcommand,   &kListSubcommand, &kValidateSubcommand,
    &kLowerSubcommand,  &kScheduleSubcommand, &kCheckPassSubcommand,
};

constexpr const char* kDescription =
    "reshardctl: read Paddle PIR dumps of distributed programs, insert the reshards "
    "the partition pass needs, print them back exactly as Paddle does.";

constexpr const char* kFooter =
    "Examples (the samples/ named are installed in share/reshardctl):\n"
    "  reshardctl apply samples/seed_mlp_before.ir -o after.ir\n"
    "  reshardctl apply --check -r --program after: samples/\n"
    "  reshardctl apply --diff samples/seed_mlp_before.ir | patch -p0\n"
    "  reshardctl print samples/seed_mlp_after.ir | diff samples/seed_mlp_after.ir -\n"
    "  reshardctl verify -Werror --error-format=github samples/*.ir\n"
    "  reshardctl plan --apply samples/seed_mlp_before.ir --json\n"
    "  reshardctl run --apply samples/tp_mlp_2x2_before.ir\n"
    "  reshardctl diff -u --ignore-attr op_role samples/seed_mlp_before.ir samples/seed_mlp_after.ir\n"
    "  reshardctl diff samples/train.log#1 samples/train.log#2\n"
    "  reshardctl print --brief samples/seed_mlp_after.ir\n"
    "  reshardctl print --emit=dot samples/seed_mlp_after.ir | dot -Tsvg -o mlp.svg\n"
    "  reshardctl print --emit=html --compare samples/seed_mlp_before.ir -o page.html samples/seed_mlp_after.ir\n"
    "  reshardctl list samples/train.log\n"
    "  reshardctl check-pass samples/train.log\n"
    "  reshardctl verify -r --program after:apply_partition_pass samples/\n"
    "  reshardctl apply --program 1 samples/train.log\n"
    "  reshardctl validate samples/seed_mlp_before.ir\n"
    "Exit status: 0 success; 1 bad input (diagnostics on stderr), a check that found something "
    "(apply --check, verify -Werror, diff: the programs differ) or a failing reshard (run); 2 bad usage, "
    "an I/O error or an unavailable backend. Each subcommand's --help says which.";

const Choices<CliDocument> kDocuments = {
    {"man", CliDocument::Man}, {"bash", CliDocument::Bash}, {"zsh", CliDocument::Zsh}};

// The subcommand to run when argv names it first, before any flag;
// otherwise (top-level flags, none or an unknown one) nullptr: then every
// subcommand is defined, for --help's listing, the man page, the
// completions and the suggestions.
const SubcommandSpec* leadingSubcommand(int argc, char** argv) {
  if (argc < 2) return nullptr;
  const std::string_view first = argv[1];
  for (const SubcommandSpec* spec : kSubcommands)
    if (first == spec->name) return spec;
  return nullptr;
}

// The command line as CLI11 holds it: the flags common to all, and the
// subcommands defined, each with its runner. The flags point into it.
struct CommandLine {
  CLI::App app{kDescription};
  ReportingOptions reporting;
  CliDocument generate = CliDocument::None;  // hidden: --generate=man|bash|zsh (cli_docs.h)
  bool complete = false;                     // every subcommand is defined
  std::vector<std::pair<const CLI::App*, SubcommandRunner>> subcommands;

  // Only `only`'s flags, or with nullptr every subcommand's.
  explicit CommandLine(const SubcommandSpec* only) : complete(only == nullptr) {
    app.set_version_flag("-V,--version", versionText);  // asked only for -V: it asks exec/ for the backends
    app.require_subcommand(0, 1);
    app.footer(kFooter);
    addChoiceOption(app, "--generate", generate, kDocuments, "Write the man page or a shell completion script")
        ->group("");
    for (const SubcommandSpec* spec : kSubcommands) {
      if (only != nullptr && only != spec) continue;
      CLI::App* command = app.add_subcommand(spec->name, spec->summary);
      subcommands.emplace_back(command, spec->define(*command, reporting));
    }
  }
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // The runner of the subcommand argv chose; null when it chose none.
  const SubcommandRunner* chosen() const {
    const std::vector<CLI::App*> parsed = app.get_subcommands();
    for (const auto& [command, runner] : subcommands)
      if (!parsed.empty() && command == parsed.front()) return &runner;
    return nullptr;
  }
};

// A usage error as --error-format asks (JSON, SARIF and GitHub readers get
// their record too), else as text with a hint.
int reportUsageError(const std::string& message, int argc, char** argv) {
  ReportingOptions options;
  options.errorFormat = errorFormatIn(argc, argv);
  std::string error;
  std::unique_ptr<Reporter> reporter = options.errorFormat == DiagnosticFormat::Text
                                           ? nullptr : Reporter::create(options, &error);
  if (!reporter) {
    writeError(message + "\nRun with --help for the flags.\n");
    return kExitUsage;
  }
  constexpr std::string_view kPrefix = "reshardctl: error: ";
  reporter->toolError(message.rfind(kPrefix, 0) == 0 ? message.substr(kPrefix.size()) : message);
  reporter->finish();
  return kExitUsage;
}

// Parses argv into `cli`; -1 when the command should run, else the exit
// code. A usage error is explained with every subcommand defined (`cli`
// rebuilt so), so that its message (the subcommand a flag belongs to, the
// closest flag) does not depend on how much was defined.
int parse(std::unique_ptr<CommandLine>& cli, int argc, char** argv) {
  const std::string unknown = unknownSubcommand(cli->app, argc, argv);
  if (!unknown.empty()) {
    writeError(unknown + "\nRun 'reshardctl --help' for the subcommands.\n");
    return kExitUsage;
  }
  try {
    cli->app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return exitThroughSinks(cli->app, e);
  } catch (const CLI::CallForAllHelp& e) {
    return exitThroughSinks(cli->app, e);
  } catch (const CLI::CallForVersion& e) {
    return exitThroughSinks(cli->app, e);
  } catch (const CLI::ParseError& e) {
    if (!cli->complete) {
      cli = std::make_unique<CommandLine>(nullptr);
      return parse(cli, argc, argv);
    }
    return reportUsageError(explainParseError(cli->app, e), argc, argv);
  }
  return -1;
}

// Runs the parsed subcommand. The one place a command's running out of
// memory (or any exception that escaped it) is reported: unwinding has
// removed any temporary output, so an earlier output file is as it was.
// The one place a command's failure is reported, with its exit code: a
// Failure, running out of memory, or any exception that escaped. Unwinding
// has removed any temporary output, so an earlier output file is as it was.
int runSubcommand(const SubcommandRunner& run, Reporter& reporter) {
  try {
    return run(reporter);
  } catch (...) {  // a Failure, out of memory, or a bug (support/failure.h)
    const Failure failure = currentFailure();
    reporter.toolError(failure.message);
    return exitCodeOf(failure.kind);
  }
}

// `reshardctl help [SUBCOMMAND]` is `reshardctl [SUBCOMMAND] --help`;
// other command lines are as given.
std::vector<char*> helpAsFlag(int argc, char** argv) {
  static char helpFlag[] = "--help";
  std::vector<char*> arguments(argv, argv + argc);
  if (argc < 2 || std::string_view(argv[1]) != "help") return arguments;
  if (argc > 3) throw Failure(FailureKind::Usage, "help takes at most one subcommand: reshardctl help SUBCOMMAND");
  arguments.erase(arguments.begin() + 1);
  arguments.push_back(helpFlag);
  return arguments;
}

// The command line after `help` became --help.
int runCommandLine(int argc, char** argv) {
  auto cli = std::make_unique<CommandLine>(leadingSubcommand(argc, argv));
  if (const int exit = parse(cli, argc, argv); exit >= 0) return exit;
  if (cli->generate != CliDocument::None) {
    if (writeCliDocument(cli->app, cli->generate, standardOutput())) return kExitOk;
    writeError("reshardctl: error: " + standardOutput().errorMessage() + "\n");
    return kExitUsage;
  }
  const SubcommandRunner* run = cli->chosen();
  if (run == nullptr) {
    writeError("reshardctl: error: a subcommand is required: apply, print, verify, diff, plan, run, list, "
               "validate, lower, schedule or check-pass\n"
               "Run 'reshardctl --help' for more.\n");
    return kExitUsage;
  }
  std::string error;
  std::unique_ptr<Reporter> reporter = Reporter::create(cli->reporting, &error);
  if (!reporter) {
    writeError("reshardctl: error: " + error + "\n");
    return kExitUsage;
  }
  int status = runSubcommand(*run, *reporter);
  // A write to standard output that no command checks (verify --json):
  // the sink kept why it failed.
  if (standardOutput().failed() && status != kExitUsage) {
    reporter->toolError(standardOutput().errorMessage());
    status = kExitUsage;
  }
  reporter->finish();
  return status;
}

}  // namespace

int runCli(int argc, char** argv) {
  std::vector<char*> arguments;
  try {
    arguments = helpAsFlag(argc, argv);
  } catch (const Failure& failure) {
    writeError("reshardctl: error: " + failure.message + "\n");
    return kExitUsage;
  }
  return runCommandLine(static_cast<int>(arguments.size()), arguments.data());
}

}  // namespace reshardctl
