#include "tool/cli_support.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "exec/execution_backend.h"
#include "interp/shrink/shrink.h"
#include "passes/partition_pass.h"
#include "reshard/cost_model.h"
#include "tool/build_info.h"
#include "tool/input_files.h"
#include "support/escape.h"
#include "support/parallel_jobs.h"
#include "support/suggest.h"
#include "syntax/parallel/parallel_parse.h"
#include "syntax/printer.h"

namespace reshardctl {

namespace {

// The whole of `text` as a finite double.
bool parseNumber(const std::string& text, double* value) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && errno != ERANGE && std::isfinite(*value);
}

CLI::Validator numberAbove(double bound, bool inclusive, const std::string& words) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0;
        if (parseNumber(text, &value) && (inclusive ? value >= bound : value > bound)) return "";
        return fmt::format("must be {}, not '{}'", words, text);
      },
      "");
}

std::vector<std::string> subcommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (!sub->get_group().empty()) names.push_back(sub->get_name());
  return names;
}

// The flag names `command` takes, with their dashes.
std::vector<std::string> flagNames(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_group().empty()) continue;  // hidden
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

// The subcommand of `app` that takes `flag`: the one on the command line if
// it does, else the first.
const CLI::App* subcommandTaking(const CLI::App& app, const std::string& flag) {
  const std::vector<CLI::App*> parsed = app.get_subcommands();
  std::vector<const CLI::App*> candidates(parsed.begin(), parsed.end());
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) candidates.push_back(sub);
  for (const CLI::App* sub : candidates) {
    const std::vector<std::string> names = flagNames(*sub);
    if (std::find(names.begin(), names.end(), flag) != names.end()) return sub;
  }
  return nullptr;
}

std::string unknownArguments(const CLI::App& command, const std::string& commandName) {
  std::string message;
  for (const std::string& argument : command.remaining()) {
    if (!message.empty()) message += "\n";
    if (argument.size() < 2 || argument[0] != '-') {
      message += fmt::format("reshardctl: error: unexpected argument '{}' for '{}'", terminalLine(argument), commandName);
      continue;
    }
    const std::string flag = terminalLine(argument.substr(0, argument.find('=')));
    if (command.get_parent() == nullptr && subcommandTaking(command, flag)) {
      message += fmt::format("reshardctl: error: '{}' goes after the subcommand: reshardctl {} {} ...", flag,
                             subcommandTaking(command, flag)->get_name(), terminalLine(argument));
      continue;
    }
    message += fmt::format("reshardctl: error: unknown flag '{}' for '{}';{}", flag, commandName,
                           didYouMean(flag, flagNames(command)).empty() ? " see --help"
                                                                         : didYouMean(flag, flagNames(command)));
  }
  return message;
}

// What the cost model accepts: any real link, nothing absurd (a typo of a
// few digits should not silently plan for a 1e300 GB/s network).
constexpr double kMaxBandwidthGBs = 1e6;  // 1 PB/s
constexpr double kMaxLatencyUs = 1e9;     // 1000 s

constexpr const char* kProgramHelp =
    "Which program of a file holding several (a log; see `reshardctl list`): its number N, text its "
    "label contains, or after:PASS / before:PASS (printed after or before that pass; FILE#N names one too)";

}  // namespace

void addOutput(CLI::App& command, std::string& output) {
  command.add_option("-o,--output", output, "Where to write ('-' = standard output)")->default_str("-");
}

void addInputsOutputProgram(CLI::App& command, InputSelection& inputs, std::string& output) {
  addInputFlags(command, inputs);
  addOutput(command, output);
  addProgramOption(command, inputs);
}

void addInputOutput(CLI::App& command, std::string& input, std::string& output) {
  command.add_option("input", input, "Program dump to read ('-' = standard input)")->default_str("-");
  addOutput(command, output);
}

// Without --program, several inputs or -r take each program of a log in turn.
void addProgramOption(CLI::App& command, InputSelection& inputs) {
  command.add_option("--program", inputs.program,
                     std::string(kProgramHelp) + ". One input: the first it selects. Several inputs or -r: "
                                                 "each program of a log in turn (FILE#N), only those it selects; "
                                                 "a file with none, or no program at all, is skipped");
}

void addProgramOption(CLI::App& command, std::string& selector) {
  command.add_option("--program", selector, kProgramHelp);
}

void addPartitionFlags(CLI::App& command, PartitionOptions& options) {
  command.add_flag("--split-cross-mesh", options.splitCrossMesh,
                   "A change of mesh and layout becomes two reshards: to the destination "
                   "mesh keeping the layout, then the layout change (decompose_reshard_pass)");
  command.add_flag("--fold", options.fold,
                   "Reshard a reshard's result from that reshard's input; remove reshards "
                   "left without uses");
  command.add_flag("--dedupe", options.dedupe,
                   "One reshard per (value, destination layout) instead of one per use");
  command.add_flag("--reshard-results", options.reshardResults,
                   "A result whose type disagrees with its op_dist_attr entry takes the "
                   "entry's layout; a reshard back to the old layout follows the op");
}

// A per-mesh-dim list flag: one argument, split at commas.
void addPerDimList(CLI::App& command, const std::string& name, std::vector<double>& values, const std::string& help,
                   const CLI::Validator& check, double defaultValue) {
  command.add_option(name, values, help)
      ->allow_extra_args(false)  // one argument per flag; commas split it
      ->delimiter(',')
      ->check(check)
      ->default_str(fmt::format("{:g}", defaultValue));
}

void addCostModelFlags(CLI::App& command, CostModel& costs, CostFlags& flags) {
  const CostModel defaults;
  const CLI::Validator bandwidth = numberIn(0, kMaxBandwidthGBs, true, "GB/s");
  const CLI::Validator latency = numberIn(0, kMaxLatencyUs, false, "us");
  addPerDimList(command, "--bandwidth", flags.bandwidths,
                "Bus bandwidth per mesh dim in GB/s, comma-separated; the last applies to higher dims", bandwidth,
                defaults.link.bandwidthGBs);
  addPerDimList(command, "--latency", flags.latencies,
                "Latency per ring hop per mesh dim in us, comma-separated; the last applies to higher dims", latency,
                defaults.link.latencyUs);
  command.add_option("--cross-bandwidth", costs.crossMesh.bandwidthGBs,
                     "Bandwidth of moves between meshes in GB/s")
      ->check(bandwidth)
      ->capture_default_str();
  command.add_option("--cross-latency", costs.crossMesh.latencyUs, "Latency of moves between meshes in us")
      ->check(latency)
      ->capture_default_str();
  command.add_option("--node-size", costs.processesPerNode,
                     "Processes per node (ids numbered node by node); moves between meshes within a node use "
                     "--node-bandwidth, 1: every process a node of its own")
      ->check(integerIn(1, int64_t{1} << 20))
      ->capture_default_str();
  command.add_option("--node-bandwidth", costs.withinNode.bandwidthGBs,
                     "Bandwidth of moves between meshes within a node in GB/s")
      ->check(bandwidth)
      ->capture_default_str();
  command.add_option("--node-latency", costs.withinNode.latencyUs,
                     "Latency per peer of moves between meshes within a node in us")
      ->check(latency)
      ->capture_default_str();
  command.add_option("--launch-latency", costs.launchUs, "Fixed cost of every collective in us")
      ->check(latency)
      ->capture_default_str();
}

void finishCostModel(CostModel& costs, const CostFlags& flags) {
  costs.setMeshDimLinks(flags.bandwidths, flags.latencies);
}

const Choices<BackendKind>& backendChoices() {
  static const Choices<BackendKind> choices = {{"cpu", BackendKind::Cpu}, {"nccl", BackendKind::Nccl}};
  return choices;
}

const Choices<LoweringKind>& loweringChoices() {
  static const Choices<LoweringKind> choices = {{"paddle", LoweringKind::Paddle}, {"plan", LoweringKind::Plan}};
  return choices;
}

const Choices<PaddleRelease>& paddleReleaseChoices() {
  static const Choices<PaddleRelease> choices = {{"3.0", PaddleRelease::V3_0}, {"3.0-beta", PaddleRelease::V3_0Beta}};
  return choices;
}

CLI::Validator positiveNumber() { return numberAbove(0, false, "a number greater than 0"); }
CLI::Validator nonNegativeNumber() { return numberAbove(0, true, "a number of at least 0"); }

CLI::Validator numberIn(double min, double max, bool minExcluded, const char* unit) {
  const std::string range = minExcluded ? fmt::format("greater than {:g} and at most {:g}", min, max)
                                        : fmt::format("from {:g} to {:g}", min, max);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0;
        if (parseNumber(text, &value) && (minExcluded ? value > min : value >= min) && value <= max) return "";
        return fmt::format("must be a number {} ({}), not '{}'", range, unit, text);
      },
      "");
}

CLI::Validator integerIn(int64_t min, int64_t max) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const long long value = std::strtoll(text.c_str(), &end, 10);
        if (!text.empty() && end == text.c_str() + text.size() && errno != ERANGE && value >= min && value <= max)
          return "";
        return fmt::format("must be an integer from {} to {}, not '{}'", min, max, text);
      },
      "");
}

void addJobsOption(CLI::App& command) {
  command
      .add_option_function<unsigned>(
          "-j,--jobs", setRequestedJobs,
          fmt::format("Threads to parse and print a program on (default: all cores to parse a program of {} MiB "
                      "or more and to print one of {} values, results and block arguments, or more, else 1); the "
                      "output is the same",
                      kParallelParseBytes >> 20, kParallelPrintValues))
      ->type_name("N")
      ->envname("RESHARDCTL_JOBS")
      ->check(integerIn(1, kMaxJobs));
}

void addShrinkOption(CLI::App& command, std::string& text, std::string_view autoWeighs) {
  command
      .add_option("--shrink", text,
                  fmt::format("Work on a copy with every dim divided consistently by FACTOR (auto: only when {}, "
                              "by the smallest power of two that fits; off: never)", autoWeighs))
      ->capture_default_str()
      ->type_name("FACTOR|auto|off")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            if (parseShrinkRequest(value)) return "";
            return fmt::format("must be auto, off or a factor from 1 to {}, not '{}'", kMaxShrinkFactor, value);
          },
          ""));
}

CLI::Validator unsignedInteger() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        std::strtoull(text.c_str(), &end, 10);
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        if (digits && end == text.c_str() + text.size() && errno != ERANGE) return "";
        return fmt::format("must be an integer from 0 to {}, not '{}'", std::numeric_limits<uint64_t>::max(), text);
      },
      "");
}

std::string unknownSubcommand(const CLI::App& app, int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument.empty() || argument[0] == '-') continue;  // the app's own flags (--help, --version)
    const std::vector<std::string> names = subcommandNames(app);
    if (std::find(names.begin(), names.end(), argument) != names.end()) return "";
    const std::string suggestion = didYouMean(argument, names);
    return fmt::format("reshardctl: error: unknown subcommand '{}';{}", terminalLine(argument),
                       suggestion.empty() ? fmt::format(" the subcommands are {}", fmt::join(names, ", ")) : suggestion);
  }
  return "";
}

std::string explainParseError(const CLI::App& app, const CLI::ParseError& error) {
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    for (const CLI::App* command : app.get_subcommands())
      if (!command->remaining().empty()) return unknownArguments(*command, command->get_name());
    if (!app.remaining().empty()) return unknownArguments(app, "reshardctl");
  }
  return fmt::format("reshardctl: error: {}", error.what());
}

std::string versionText() {
  std::string backends = "cpu";
  if (ncclBackendBuilt()) backends += fmt::format(", nccl ({})", kCudaVersion);
  return fmt::format("reshardctl {} (commit {})\nbackends: {}; multi-process runs under mpirun: {}",
                     kReshardctlVersion, kGitCommit, backends, kBuiltWithMpi ? "yes" : "no");
}

}  // namespace reshardctl

namespace reshardctl {

namespace {

// Where a help line's continuation starts: the column of its description
// (after a flag and two or more spaces) or its own indentation.
size_t continuationColumn(std::string_view line) {
  const size_t indent = line.find_first_not_of(' ');
  if (indent == std::string_view::npos) return 0;
  const size_t gap = line.find("  ", indent);
  if (gap == std::string_view::npos) return indent;
  const size_t description = line.find_first_not_of(' ', gap);
  return description == std::string_view::npos ? indent : description;
}

void appendWrapped(std::string_view line, size_t width, std::string* out) {
  const size_t column = continuationColumn(line);
  // A continuation column past half the width would leave too little room.
  const size_t indent = column * 2 <= width ? column : 0;
  size_t room = width;  // the first line's; a continuation's is width - indent
  while (line.size() > room) {
    const size_t text = line.find_first_not_of(' ');
    size_t cut = line.rfind(' ', room);
    if (cut == std::string_view::npos || cut <= text) cut = line.find(' ', room);  // one word longer than the room
    if (cut == std::string_view::npos) break;
    *out += line.substr(0, cut);
    *out += '\n';
    out->append(indent, ' ');
    line.remove_prefix(cut);
    line.remove_prefix(std::min(line.find_first_not_of(' '), line.size()));
    room = width - indent;
  }
  *out += line;
}

}  // namespace

std::string wrapHelpText(std::string_view text, size_t width) {
  if (width == 0) return std::string(text);
  std::string out;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    appendWrapped(text.substr(0, end), width, &out);
    if (end == std::string_view::npos) break;
    out += '\n';
    text.remove_prefix(end + 1);
  }
  return out;
}

size_t helpWidth() {
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr && *columns != '\0') {
    size_t width = 0;
    const std::string_view text(columns);
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), width);
    if (ec == std::errc() && end == text.data() + text.size() && width >= 20) return std::min<size_t>(width, 1000);
  }
  struct winsize size {};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 20) return size.ws_col;
  return 0;
}

}  // namespace reshardctl
