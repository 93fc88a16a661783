// What the subcommands' definitions share (cli.h's table): the flags
// several subcommands take, closed sets of flag values parsed into enums,
// range checks that say what is allowed in words, usage errors that name the
// unknown subcommand or flag and suggest the closest one, and the --version
// text.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "lower/lowered_ops.h"
#include "tool/cli.h"

namespace reshardctl {

struct CostModel;
struct InputSelection;
struct PartitionOptions;

// The footers' common words.
inline constexpr const char* kUsageExit = "2 bad usage or an I/O error";
inline constexpr const char* kSeveralInputs = "With several inputs, the exit status is the worst of them.";

void addOutput(CLI::App& command, std::string& output);  // -o,--output, default '-'
// The positional inputs (input_files.h), -o and --program: a command that
// reads several programs into one output.
void addInputsOutputProgram(CLI::App& command, InputSelection& inputs, std::string& output);
// The positional input (default '-') and -o.
void addInputOutput(CLI::App& command, std::string& input, std::string& output);
// `--program N|TEXT`, on every command that reads one program: which program
// of a file holding several (a log) to read (input_files.h). The first for
// commands that take several inputs (input_files.h).
void addProgramOption(CLI::App& command, InputSelection& inputs);
void addProgramOption(CLI::App& command, std::string& selector);
// The partition pass's switches: apply, plan --apply, run --apply, validate --apply.
void addPartitionFlags(CLI::App& command, PartitionOptions& options);

// The cost-model flags; the per-mesh-dim lists go into the model after
// parsing (finishCostModel). Each list flag takes exactly one argument,
// split at commas, so `--bandwidth 370,25 FILE` leaves FILE to be the input.
struct CostFlags {
  std::vector<double> bandwidths;
  std::vector<double> latencies;
};
void addCostModelFlags(CLI::App& command, CostModel& costs, CostFlags& flags);
void finishCostModel(CostModel& costs, const CostFlags& flags);

// A command's options beside its cost-model flags.
template <typename Options>
struct WithCostFlags {
  Options options;
  CostFlags costs;
};

// The runner of a command with cost-model flags (`flags->options.costs`,
// `flags->costs`): the model finished, then `run`. Without a list flag there
// is nothing to finish (the defaults stand), so a run that gives none, as
// most do, never enters the cost model before it uses it.
template <typename Flags, typename Options>
SubcommandRunner runnerWithCosts(std::shared_ptr<Flags> flags, int (*run)(const Options&, Reporter&)) {
  return [flags, run](Reporter& reporter) {
    if (!flags->costs.bandwidths.empty() || !flags->costs.latencies.empty())
      finishCostModel(flags->options.costs, flags->costs);
    return run(flags->options, reporter);
  };
}

// A closed set of flag values: each name and the enum it stands for, in the
// order help lists them.
template <typename Enum>
struct Choice {
  const char* name;
  Enum value;
};
template <typename Enum>
using Choices = std::vector<Choice<Enum>>;

template <typename Enum>
const char* choiceName(const Choices<Enum>& choices, Enum value) {
  for (const Choice<Enum>& choice : choices)
    if (choice.value == value) return choice.name;
  return "";
}

// `FLAG NAME` with NAME one of `choices`, parsed into `value` here, once.
// Help, man page, completions and errors are CLI::IsMember's ("--emit: foo
// not in {ir,json}"); the default shown is `value`'s name.
template <typename Enum>
CLI::Option* addChoiceOption(CLI::App& command, const std::string& flag, Enum& value, const Choices<Enum>& choices,
                             const std::string& help) {
  std::vector<std::string> names;
  for (const Choice<Enum>& choice : choices) names.emplace_back(choice.name);
  const auto parse = [&value, choices](const std::string& name) {
    for (const Choice<Enum>& choice : choices)
      if (name == choice.name) value = choice.value;
  };
  return command.add_option_function<std::string>(flag, parse, help)
      ->check(CLI::IsMember(names))
      ->default_str(choiceName(choices, value));
}

// Where `run` and `validate` run their reshards.
enum class BackendKind { Cpu, Nccl };
const Choices<BackendKind>& backendChoices();  // cpu, nccl

// Which ops `lower` and `validate --lowered` make of a reshard: Paddle's own
// reshard functions, or the min-cost plan of `plan` (its default cost model).
enum class LoweringKind { Paddle, Plan };
const Choices<LoweringKind>& loweringChoices();  // paddle, plan
inline constexpr const char* kLoweringHelp =
    "Which ops a reshard becomes: Paddle's own reshard functions, or the min-cost plan of `plan` (its default cost "
    "model) in the same ops";

// `--paddle`: whose spelling of the collectives the lowering writes
// (docs/lowering.md, "Paddle releases").
const Choices<PaddleRelease>& paddleReleaseChoices();  // 3.0, 3.0-beta
inline constexpr const char* kPaddleReleaseHelp =
    "Whose reshard functions' op names to write: 3.0 (pd_op.all_reduce, all_gather, reduce_scatter) or 3.0-beta "
    "(pd_op.c_allreduce_sum_, c_allgather, c_reducescatter, as in mid 2024)";

// "must be a number greater than 0, not '-1'": values that are not finite
// (1e400) fail too.
CLI::Validator positiveNumber();
CLI::Validator nonNegativeNumber();
// A bounded quantity: "must be a number greater than 0 and at most 1e+06
// (GB/s), not '1e400'" (`minExcluded`: above min; else from min).
CLI::Validator numberIn(double min, double max, bool minExcluded, const char* unit);
// "must be an integer from 1 to 2147483647, not '0'"; `max` defaults to the
// type's largest.
CLI::Validator integerIn(int64_t min, int64_t max);
// --shrink[=FACTOR|auto|off] (validate, run): `text` as given, checked by
// interp/shrink/shrink.h's parseShrinkRequest; its default is the one `text`
// holds. autoWeighs: the help's words for what auto weighs.
void addShrinkOption(CLI::App& command, std::string& text, std::string_view autoWeighs);
CLI::Validator unsignedInteger();  // 0 to 2^64-1
// `-j,--jobs N`, else RESHARDCTL_JOBS: the threads a large program prints on
// (support/parallel_jobs.h); a bad value is a usage error in either.
void addJobsOption(CLI::App& command);

// The subcommand named in argv when it is not one of `app`'s: a usage
// message with a suggestion ("unknown subcommand 'aply'; did you mean
// 'apply'?"); empty when argv names a known one or none.
std::string unknownSubcommand(const CLI::App& app, int argc, const char* const* argv);

// The usage message for a parse error: for flags no subcommand knows, each
// one named with the closest flag of its subcommand.
std::string explainParseError(const CLI::App& app, const CLI::ParseError& error);

// --help's text wrapped to `width` columns (0: as it is): a line too long
// breaks at spaces, continuing under its description (the text after the
// flag's column) or under its own indentation.
std::string wrapHelpText(std::string_view text, size_t width);
// The width --help is wrapped to: COLUMNS when set, else the terminal's when
// standard output is one, else 0 (a pipe or file gets the lines unwrapped).
size_t helpWidth();

// "reshardctl 0.1.0 (commit ...)", then the backends this binary holds.
std::string versionText();

}  // namespace reshardctl
