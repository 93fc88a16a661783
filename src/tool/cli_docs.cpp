#include "tool/cli_docs.h"

#include <utility>

#include <fmt/format.h>

#include "passes/lint.h"
#include "support/parallel_jobs.h"
#include "syntax/parallel/parallel_parse.h"
#include "syntax/printer.h"
#include "tool/build_info.h"

namespace reshardctl {

namespace {

// The visible subcommands and options, in definition order.
std::vector<const CLI::App*> subcommands(const CLI::App& app) {
  std::vector<const CLI::App*> list;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (!sub->get_group().empty()) list.push_back(sub);
  return list;
}

std::vector<const CLI::Option*> options(const CLI::App& command) {
  std::vector<const CLI::Option*> list;
  for (const CLI::Option* option : command.get_options())
    if (!option->get_group().empty()) list.push_back(option);
  return list;
}

bool takesValue(const CLI::Option& option) { return option.get_items_expected_max() > 0; }

// "{ir,json}" in the option's type name (CLI11 puts IsMember's list there).
std::vector<std::string> choices(const CLI::Option& option) {
  const std::string type = option.get_type_name();
  const size_t open = type.find('{'), close = type.find('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return {};
  std::vector<std::string> values;
  std::string value;
  for (char c : type.substr(open + 1, close - open - 1)) {
    if (c == ',') values.push_back(std::exchange(value, ""));
    else value += c;
  }
  if (!value.empty()) values.push_back(value);
  return values;
}

// Options whose values are files: the inputs, the outputs and any option
// whose value is named FILE (print's --compare).
bool takesFile(const CLI::Option& option) {
  const std::string name = option.get_name();
  return option.get_positional() || name == "--output" || name == "-o" || option.get_type_name() == "FILE";
}

// What -W takes in the same word: -Wall, -Werror, and for each warning
// -WNAME, -Wno-NAME, -Werror=NAME.
std::vector<std::string> warningWords() {
  std::vector<std::string> words = {"-Wall", "-Werror"};
  for (const LintWarning& warning : lintWarnings())
    for (const char* prefix : {"-W", "-Wno-", "-Werror="}) words.push_back(prefix + std::string(warning.name));
  return words;
}

std::vector<std::string> flagNames(const CLI::Option& option) {
  std::vector<std::string> names;
  for (const std::string& name : option.get_snames()) names.push_back("-" + name);
  for (const std::string& name : option.get_lnames()) names.push_back("--" + name);
  return names;
}

// ---- man page ----------------------------------------------------------------

std::string roff(const std::string& text) {
  std::string out;
  bool lineStart = true;
  for (char c : text) {
    if (lineStart && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
    lineStart = c == '\n';
  }
  return out;
}

std::string manOption(const CLI::Option& option) {
  std::string head;
  if (option.get_positional()) {
    head = fmt::format("\\fI{}\\fR", option.get_name(true));
  } else {
    std::vector<std::string> names;
    for (const std::string& name : flagNames(option)) names.push_back("\\fB" + roff(name) + "\\fR");
    head = fmt::format("{}", fmt::join(names, ", "));
    if (takesValue(option)) head += fmt::format(" \\fI{}\\fR", roff(option.get_type_name()));
  }
  std::string text = roff(option.get_description());
  if (!option.get_default_str().empty()) text += fmt::format(" (default: {})", roff(option.get_default_str()));
  return fmt::format(".TP\n{}\n{}\n", head, text);
}

std::string manParagraphs(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out += ".PP\n" + roff(text.substr(start, end - start)) + "\n";
    start = end + 1;
  }
  return out;
}

// "reshardctl apply [options] [inputs...]", from the positional arguments.
std::string manSynopsis(const CLI::App& command) {
  std::string line = fmt::format(".B reshardctl {}\n[\\fIoptions\\fR]", command.get_name());
  for (const CLI::Option* option : options(command)) {
    if (!option->get_positional()) continue;
    const std::string name = fmt::format("\\fI{}\\fR{}", option->get_name(true),
                                         option->get_items_expected_max() > 1 ? "..." : "");
    line += option->get_required() ? " " + name : " [" + name + "]";
  }
  return line + "\n.br\n";
}

// The main footer: "Examples:" lines, then "Exit status: ...".
std::pair<std::string, std::string> examplesAndExit(const CLI::App& app) {
  const std::string footer = app.get_footer();
  const size_t exit = footer.find("Exit status:");
  std::string examples = footer.substr(0, exit);
  if (examples.rfind("Examples:\n", 0) == 0) examples = examples.substr(10);
  return {examples, exit == std::string::npos ? "" : footer.substr(exit + 13)};
}

// ---- completions -------------------------------------------------------------

std::string shellWords(const std::vector<std::string>& words) { return fmt::format("{}", fmt::join(words, " ")); }

// Text inside a single-quoted shell word.
std::string shellQuoted(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out;
}

// A zsh _arguments spec's text with its special characters escaped.
std::string zshEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out;
}

std::string zshSpec(const CLI::Option& option) {
  const std::vector<std::string> values = choices(option);
  std::string action = takesFile(option) ? "_files" : values.empty() ? " " : "(" + shellWords(values) + ")";
  const std::string description = zshEscape(option.get_description());
  if (option.get_positional()) return fmt::format("'*:{}:{}'", option.get_name(true), action);
  std::string value = takesValue(option) ? fmt::format(":{}:{}", zshEscape(option.get_type_name()), action) : "";
  std::vector<std::string> specs;
  for (const std::string& name : flagNames(option)) {
    // -W takes its value in the same word (-Wno-uneven-shards).
    const std::string joined = name == "-W" ? "-W-" : takesValue(option) && name.size() > 2 ? name + "=" : name;
    specs.push_back(fmt::format("'{}[{}]{}'", joined, description, value));
  }
  return fmt::format("{}", fmt::join(specs, " "));
}

}  // namespace

std::string manPage(const CLI::App& app) {
  std::string out = fmt::format(".TH RESHARDCTL 1 \"\" \"reshardctl {}\" \"User Commands\"\n", kReshardctlVersion);
  out += ".SH NAME\nreshardctl \\- " + roff(app.get_description().substr(app.get_description().find(':') + 2)) + "\n";
  out += ".SH SYNOPSIS\n";
  for (const CLI::App* sub : subcommands(app)) out += manSynopsis(*sub);
  out += ".B reshardctl\n\\-\\-version | \\-\\-help\n";
  out += ".SH DESCRIPTION\n" + roff(app.get_description()) + "\n" +
         manParagraphs("Inputs are files or '-' (standard input). Output files are written whole or not at all: a "
                       "run that fails leaves an earlier output untouched. Diagnostics go to standard error, as "
                       "text (file:line:col: error: message, the line and a caret) or as --error-format says.");
  out += ".SH SUBCOMMANDS\n";
  for (const CLI::App* sub : subcommands(app)) {
    out += fmt::format(".SS {}\n{}\n", sub->get_name(), roff(sub->get_description()));
    for (const CLI::Option* option : options(*sub)) out += manOption(*option);
    out += manParagraphs(sub->get_footer());
  }
  out += ".SH WARNINGS\nverify's warnings, by the name \\fB\\-W\\fR, \\fB\\-Wno\\-\\fR and \\fB\\-Werror=\\fR take:\n";
  for (const LintWarning& warning : lintWarnings())
    out += fmt::format(".TP\n\\fB{}\\fR\n{}\n", roff(warning.name), roff(warning.summary));
  out += ".SH ENVIRONMENT\n"
         ".TP\n\\fBNO_COLOR\\fR\nWhen set and not empty, \\fB\\-\\-color=auto\\fR does not colour.\n"
         ".TP\n\\fBTERM\\fR\nWhen \\fBdumb\\fR, \\fB\\-\\-color=auto\\fR does not colour.\n"
         ".TP\n\\fBCOLUMNS\\fR\nThe width \\fB\\-\\-help\\fR is wrapped to (else the terminal's; "
         "a pipe gets the lines unwrapped).\n"
         ".TP\n\\fBRESHARDCTL_MAX_INPUT\\fR\nA lower limit on an input's size than 4 GiB: bytes, or with a "
         "suffix K, M or G (512M). Reading stops there with an error.\n"
         ".TP\n\\fBRESHARDCTL_NCCL_LIB\\fR\nThe libnccl.so.2 that \\fB\\-\\-backend nccl\\fR loads (a file, "
         "or a folder holding it). Unset: the loader's path, then pip's wheel under the prefix of each python3 on "
         "\\fBPATH\\fR, \\fBVIRTUAL_ENV\\fR, \\fBCONDA_PREFIX\\fR, \\fBHOME\\fR/.local, /usr/local, /usr and /opt.\n"
         ".TP\n\\fBRESHARDCTL_NCCL_TIMEOUT_S\\fR\nSeconds (60) that one execution of a plan on the NCCL backend, "
         "all its steps together, and each blocking NCCL call may take; past it the communicators are aborted "
         "and the run exits 2.\n"
         ".TP\n\\fBRESHARDCTL_ALLOW_SHARED_GPU\\fR\nWhen 1, ranks beyond the GPUs share them (NCCL 2.30 or "
         "later), at most 2 a GPU.\n"
         ".TP\n\\fBRESHARDCTL_MAX_RANKS_PER_GPU\\fR\nWith \\fBRESHARDCTL_ALLOW_SHARED_GPU=1\\fR: more ranks a "
         "GPU than 2.\n"
         ".TP\n\\fBRESHARDCTL_FAULT_LOWERING\\fR\nFor tests only: \\fBslice-bound\\fR or \\fBreduce-type\\fR makes "
         "\\fBlower\\fR lower wrong on purpose (r_to_s with the next rank's slice bounds, p_to_r's all_reduce a MAX "
         "for a SUM), which \\fBvalidate \\-\\-lowered\\fR must catch.\n"
         ".TP\n\\fBRESHARDCTL_SHARE_STATS\\fR\nWhen set, \\fBvalidate\\fR says on standard error, for each "
         "process under mpirun (or the one), the bytes of the ranks' pieces it made and received.\n"
         ".TP\n\\fBRESHARDCTL_VERIFY_EACH\\fR\nWhen 1, the graph checker and the verifier run after each pass "
         "(always in debug builds); a pass that breaks the graph is an internal error.\n"
         ".TP\n\\fBTMPDIR\\fR\nWhere a piped input larger than 16 MiB is kept (an unlinked file), and where an "
         "output goes first when its own folder cannot hold a temporary file (else /tmp).\n";
  out += fmt::format(".TP\n\\fBRESHARDCTL_JOBS\\fR\nThreads \\fBapply\\fR, \\fBprint\\fR and \\fBlower\\fR parse and "
                     "print a program on when \\fB\\-j\\fR is not given (1 to {}); unset: all cores to parse a program "
                     "of {} MiB or more and to print one of {} values or more, else 1. The output is the same on any "
                     "number.\n",
                     kMaxJobs, kParallelParseBytes >> 20, kParallelPrintValues);
  const auto [examples, exitStatus] = examplesAndExit(app);
  out += ".SH EXIT STATUS\n" + roff(exitStatus) + "\n";
  out += ".SH EXAMPLES\n.nf\n" + roff(examples) + ".fi\n";
  return out;
}

std::string bashCompletion(const CLI::App& app) {
  std::vector<std::string> names;
  std::string cases;
  for (const CLI::App* sub : subcommands(app)) {
    names.push_back(sub->get_name());
    std::vector<std::string> flags, valued, files;
    std::string valueCases;
    for (const CLI::Option* option : options(*sub)) {
      if (option->get_positional()) continue;
      const std::vector<std::string> optionNames = flagNames(*option);
      flags.insert(flags.end(), optionNames.begin(), optionNames.end());
      if (!takesValue(*option)) continue;
      const std::string pattern = fmt::format("{}", fmt::join(optionNames, "|"));
      if (takesFile(*option)) valueCases += fmt::format("        {}) _reshardctl_files; return ;;\n", pattern);
      else if (!choices(*option).empty())
        valueCases += fmt::format("        {}) COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")); return ;;\n", pattern,
                                  shellWords(choices(*option)));
      else valueCases += fmt::format("        {}) return ;;\n", pattern);
    }
    cases += fmt::format("    {})\n      case $prev in\n{}      esac\n      flags=\"{}\" ;;\n", sub->get_name(),
                         valueCases, shellWords(flags));
  }
  return fmt::format(
      "# bash completion for reshardctl (written by reshardctl --generate=bash)\n"
      "_reshardctl_files() {{\n"
      "  local IFS=$'\\n'\n"
      "  COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      "  compopt -o filenames 2>/dev/null\n"
      "}}\n"
      "_reshardctl() {{\n"
      "  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}} flags\n"
      "  # bash splits --flag=value at '=': the flag is the word before it.\n"
      "  if [[ $cur == = ]]; then\n"
      "    cur=\n"
      "  elif [[ $prev == = && $COMP_CWORD -ge 3 ]]; then\n"
      "    prev=${{COMP_WORDS[COMP_CWORD-2]}}\n"
      "  fi\n"
      "  if [[ $COMP_CWORD -eq 1 ]]; then\n"
      "    COMPREPLY=($(compgen -W \"{} --help --version\" -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  case ${{COMP_WORDS[1]}} in\n"
      "{}"
      "    *) return ;;\n"
      "  esac\n"
      "  if [[ $cur == -W* && \" $flags \" == *\" -W \"* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))\n"
      "  elif [[ $cur == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$flags --help\" -- \"$cur\"))\n"
      "  else\n"
      "    _reshardctl_files\n"
      "  fi\n"
      "}}\n"
      "complete -F _reshardctl reshardctl\n",
      shellWords(names), cases, shellWords(warningWords()));
}

std::string zshCompletion(const CLI::App& app) {
  std::string commands, cases;
  for (const CLI::App* sub : subcommands(app)) {
    // _describe splits at the first colon only: the description keeps its own.
    commands += fmt::format("    '{}:{}'\n", sub->get_name(), shellQuoted(sub->get_description()));
    std::vector<std::string> specs;
    for (const CLI::Option* option : options(*sub)) specs.push_back(zshSpec(*option));
    cases += fmt::format("    {})\n      _arguments -s \\\n        {} ;;\n", sub->get_name(),
                         fmt::join(specs, " \\\n        "));
  }
  return fmt::format(
      "#compdef reshardctl\n"
      "# zsh completion for reshardctl (written by reshardctl --generate=zsh)\n"
      "_reshardctl() {{\n"
      "  local -a commands\n"
      "  commands=(\n{}  )\n"
      "  if (( CURRENT == 2 )); then\n"
      "    _describe 'subcommand' commands\n"
      "    return\n"
      "  fi\n"
      "  shift words\n"
      "  (( CURRENT-- ))\n"
      "  case $words[1] in\n"
      "{}"
      "  esac\n"
      "}}\n"
      "_reshardctl \"$@\"\n",
      commands, cases);
}

bool writeCliDocument(const CLI::App& app, CliDocument kind, OutputSink& out) {
  if (kind == CliDocument::None) return true;
  const std::string text = kind == CliDocument::Man    ? manPage(app)
                           : kind == CliDocument::Bash ? bashCompletion(app)
                                                       : zshCompletion(app);
  out.write(text);
  return out.flush();
}

}  // namespace reshardctl
