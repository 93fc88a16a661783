#include "tool/cli_support.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "exec/execution_backend.h"
#include "tool/build_info.h"
#include "tool/suggest.h"

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
      message += fmt::format("reshardctl: error: unexpected argument '{}' for '{}'", argument, commandName);
      continue;
    }
    const std::string flag = argument.substr(0, argument.find('='));
    if (command.get_parent() == nullptr && subcommandTaking(command, flag)) {
      message += fmt::format("reshardctl: error: '{}' goes after the subcommand: reshardctl {} {} ...", flag,
                             subcommandTaking(command, flag)->get_name(), argument);
      continue;
    }
    message += fmt::format("reshardctl: error: unknown flag '{}' for '{}';{}", flag, commandName,
                           didYouMean(flag, flagNames(command)).empty() ? " see --help"
                                                                         : didYouMean(flag, flagNames(command)));
  }
  return message;
}

}  // namespace

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
    return fmt::format("reshardctl: error: unknown subcommand '{}';{}", argument,
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
