#include "tool/reporting.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "passes/lint.h"
#include "report/json_export.h"
#include "support/escape.h"
#include "tool/build_info.h"
#include "tool/cli_support.h"
#include "support/suggest.h"

namespace reshardctl {

namespace {

using State = DiagnosticPolicy::State;

std::vector<std::string> warningNames() {
  std::vector<std::string> names;
  for (const LintWarning& warning : lintWarnings()) names.emplace_back(warning.name);
  return names;
}

// One -W value ("no-uneven-shards", "error=dense-operand", "error", "all")
// as a policy rule; false with a message for an unknown warning.
bool warningRule(const std::string& flag, std::pair<std::string, State>* rule, std::string* error) {
  std::string name = flag;
  std::string prefix;  // what came before the name, for the suggestion
  State state = State::On;
  if (flag == "error" || flag == "all") {
    *rule = {"", flag == "error" ? State::Error : State::On};
    return true;
  }
  if (name.rfind("error=", 0) == 0) {
    prefix = "error=";
    state = State::Error;
  } else if (name.rfind("no-error=", 0) == 0) {
    prefix = "no-error=";  // stays a warning
  } else if (name.rfind("no-", 0) == 0) {
    prefix = "no-";
    state = State::Off;
  }
  name = name.substr(prefix.size());
  const std::vector<std::string> known = warningNames();
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    const std::string closest = closestWord(name, known);
    *error = closest.empty() ? fmt::format("unknown warning '-W{}'; the warnings are: {}", flag, fmt::join(known, ", "))
                             : fmt::format("unknown warning '-W{}'; did you mean '-W{}{}'?", flag, prefix, closest);
    return false;
  }
  *rule = {name, state};
  return true;
}

const Choices<DiagnosticFormat> kFormats = {{"text", DiagnosticFormat::Text},
                                            {"json", DiagnosticFormat::Json},
                                            {"github", DiagnosticFormat::GitHub},
                                            {"sarif", DiagnosticFormat::Sarif}};

}  // namespace

DiagnosticFormat errorFormatIn(int argc, char** argv) {
  DiagnosticFormat format = DiagnosticFormat::Text;
  const std::string_view flag = "--error-format";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    std::string_view name;
    if (arg == flag && i + 1 < argc) name = argv[i + 1];
    else if (arg.size() > flag.size() && arg.substr(0, flag.size() + 1) == "--error-format=") name = arg.substr(flag.size() + 1);
    for (const Choice<DiagnosticFormat>& choice : kFormats)
      if (!name.empty() && name == choice.name) format = choice.value;
  }
  return format;
}

void addReportingFlags(CLI::App& command, ReportingOptions& options) {
  const Choices<DiagnosticFormat>& formats = kFormats;
  static const Choices<ColorMode> colors = {
      {"auto", ColorMode::Auto}, {"always", ColorMode::Always}, {"never", ColorMode::Never}};
  addChoiceOption(command, "--error-format", options.errorFormat, formats,
                  "How diagnostics are written to standard error: text, json (one object per line), "
                  "github (workflow commands that annotate a pull request) or sarif (one SARIF 2.1.0 log)")
      ->group("Diagnostics");
  addChoiceOption(command, "--color", options.color, colors,
                  "Colour diagnostics and diffs: auto (on a terminal, unless NO_COLOR is set), always or never")
      ->group("Diagnostics");
  command.add_option("--max-errors", options.maxErrors, "Stop after this many errors per input (0: no limit)")
      ->check(unsignedInteger())
      ->default_str("20")
      ->group("Diagnostics");
  command.add_flag("-q,--quiet", options.quiet,
                   "Print only errors and the command's result: no warnings, no summary or status lines")
      ->group("Diagnostics");
}

void addWarningFlags(CLI::App& command, ReportingOptions& options) {
  std::vector<std::string> names = warningNames();
  command.add_option("-W", options.warningFlags,
                     fmt::format("-W<name> turns a warning on, -Wno-<name> off, -Werror=<name> makes it an error, "
                                 "-Werror makes every warning one. Names: {}",
                                 fmt::join(names, ", ")))
      ->allow_extra_args(false)
      ->type_name("NAME")
      ->group("Diagnostics");
  command.add_flag("--werror", options.werror, "Every warning is an error (exit 1): the same as -Werror")
      ->group("Diagnostics");
}

bool useColor(ColorMode mode, std::FILE* stream) {
  if (mode == ColorMode::Always) return true;
  if (mode == ColorMode::Never) return false;
  const char* noColor = std::getenv("NO_COLOR");
  if (noColor != nullptr && *noColor != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::strcmp(term, "dumb") == 0) return false;
  return isatty(fileno(stream)) != 0;
}

std::unique_ptr<Reporter> Reporter::create(const ReportingOptions& options, std::string* error) {
  std::unique_ptr<Reporter> reporter(new Reporter());
  reporter->format_ = options.errorFormat;
  reporter->quiet_ = options.quiet;
  reporter->policy_.maxErrors = options.maxErrors;
  for (const std::string& flag : options.warningFlags) {
    std::pair<std::string, State> rule;
    if (!warningRule(flag, &rule, error)) return nullptr;
    reporter->policy_.warningRules.push_back(rule);
  }
  if (options.werror) reporter->policy_.warningRules.insert(reporter->policy_.warningRules.begin(), {"", State::Error});
  reporter->colorStdout_ = useColor(options.color, stdout);
  reporter->colorStderr_ = useColor(options.color, stderr);
  return reporter;
}

// Made at the first diagnostic (or the SARIF log's end), so that a run that
// says nothing never makes standard error's sink.
DiagnosticConsumer& Reporter::consumer() {
  if (consumer_) return *consumer_;
  switch (format_) {
    case DiagnosticFormat::Text:
      consumer_ = std::make_unique<TextDiagnosticConsumer>(standardError(), TextStyle{colorStderr_, true});
      break;
    case DiagnosticFormat::Json: consumer_ = std::make_unique<JsonLinesConsumer>(standardError()); break;
    case DiagnosticFormat::GitHub: consumer_ = std::make_unique<GitHubConsumer>(standardError()); break;
    case DiagnosticFormat::Sarif: {
      auto sarif = std::make_unique<SarifConsumer>(kReshardctlVersion);
      sarif_ = sarif.get();
      consumer_ = std::move(sarif);
      break;
    }
  }
  return *consumer_;
}

void Reporter::report(DiagnosticEngine& diagnostics, bool showWarnings) {
  if (diagnostics.diagnostics().empty()) return;  // nothing to hand on: the engine is not entered
  diagnostics.flush(consumer(), showWarnings && !quiet_);
}

void Reporter::reportFindings(const SourceFile* source, const std::vector<Diagnostic>& findings,
                              OutputSink& textOut) {
  std::vector<const Diagnostic*> list;
  for (const Diagnostic& finding : findings) list.push_back(&finding);
  if (format_ == DiagnosticFormat::Text) {
    TextDiagnosticConsumer lines(textOut, TextStyle{colorStdout_ && &textOut == &standardOutput(), false});
    lines.consume(source, list);
    return;
  }
  consumer().consume(source, list);
}

void Reporter::toolError(const std::string& message) {
  DiagnosticEngine diagnostics = engine();
  diagnostics.error(message);
  report(diagnostics);
}

void Reporter::toolWarning(const std::string& message) {
  if (quiet_) return;
  Diagnostic warning{Severity::Warning, Diagnostic::kNoLocation, 0, message, {}, "tool-error", false};
  consumer().consume(nullptr, {&warning});
}

void Reporter::summary(OutputSink& stream, const std::string& line) {
  const bool structured = format_ == DiagnosticFormat::Json || format_ == DiagnosticFormat::Sarif;
  if (quiet_ || (structured && &stream == &standardError())) return;
  // A line holds file names: escaped for a terminal, and in a workflow log so
  // that no name reads as a workflow command.
  const std::string shown = terminalLine(line);
  stream += format_ == DiagnosticFormat::GitHub ? githubLogLine(shown) : shown;
  stream += '\n';
  stream.flush();
}

void Reporter::statistic(const std::string& line) {
  if (format_ == DiagnosticFormat::Json || format_ == DiagnosticFormat::Sarif) {
    Diagnostic note{Severity::Note, Diagnostic::kNoLocation, 0, line, {}, "stats", false};
    consumer().consume(nullptr, {&note});
    return;
  }
  const bool quiet = std::exchange(quiet_, false);
  summary(standardError(), line);
  quiet_ = quiet;
}

void Reporter::finish() {
  if (format_ != DiagnosticFormat::Sarif) return;
  consumer();  // the log is written even when it holds no result
  const std::string text = dumpJson(sarif_->document());
  standardError().write(text);
  standardError().flush();
}

}  // namespace reshardctl
