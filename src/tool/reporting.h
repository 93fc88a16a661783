// How a run reports: the flags every subcommand shares about diagnostics
// (--error-format, --color, --max-errors; verify's -W flags) and the
// Reporter built from them, which every command's diagnostics go through:
// one DiagnosticPolicy for the engines, one consumer (text, JSON lines,
// GitHub or SARIF) on standard error, and colour only where asked for.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ir/diagnostics.h"
#include "report/diagnostic_formats.h"

namespace reshardctl {

// --color: whether diagnostics and diffs are coloured.
enum class ColorMode { Auto, Always, Never };

struct ReportingOptions {
  DiagnosticFormat errorFormat = DiagnosticFormat::Text;
  ColorMode color = ColorMode::Auto;
  size_t maxErrors = 20;
  std::vector<std::string> warningFlags;  // -W values in order: "no-NAME", "error=NAME", "error", "NAME"
  bool werror = false;                    // --werror, the same as -Werror
  bool quiet = false;                     // -q: no warnings, no summary lines; errors and results only
};

// --error-format, --color, --max-errors and -q/--quiet.
void addReportingFlags(CLI::App& command, ReportingOptions& options);
// The --error-format argv asks for (the last given), read without parsing the
// rest: a usage error, which stops the parse, is still written in that format.
DiagnosticFormat errorFormatIn(int argc, char** argv);
// -W<name>, -Wno-<name>, -Werror[=<name>], --werror (verify's lint warnings).
void addWarningFlags(CLI::App& command, ReportingOptions& options);

// Whether to colour what goes to `stream` under --color=`mode`: always,
// never, or (auto) when it is a terminal, TERM is not "dumb" and NO_COLOR is
// unset or empty (no-color.org; an explicit --color=always wins over it).
bool useColor(ColorMode mode, std::FILE* stream);

class Reporter {
 public:
  // Null and a message (naming the closest warning for a misspelt -W name)
  // when the options are bad.
  static std::unique_ptr<Reporter> create(const ReportingOptions& options, std::string* error);

  // An engine applying the -W flags and --max-errors.
  DiagnosticEngine engine(const SourceFile* source = nullptr) const { return DiagnosticEngine(source, &policy_); }
  // Hands the engine's diagnostics to the chosen format, on standard error.
  void report(DiagnosticEngine& diagnostics, bool showWarnings = true);
  // Findings that are a command's result (apply --check): in the text format
  // they go to `textOut` as one line each (no source snippet); otherwise
  // they join the rest.
  void reportFindings(const SourceFile* source, const std::vector<Diagnostic>& findings, OutputSink& textOut);
  void toolError(const std::string& message);
  void toolWarning(const std::string& message);
  // A per-file or closing summary line; dropped in the JSON and SARIF
  // formats when it would land in their stream (standard error), and under -q.
  void summary(OutputSink& stream, const std::string& line);

  // A line a flag asked for (apply --stats): a summary line on standard
  // error in the text and GitHub formats, a note (code "stats", no place) in
  // the JSON and SARIF ones, so every format carries it; -q leaves it.
  void statistic(const std::string& line);

  DiagnosticFormat format() const { return format_; }
  bool colorStdout() const { return colorStdout_; }
  // Writes what is written only at the end: the SARIF log.
  void finish();

 private:
  Reporter() = default;
  DiagnosticConsumer& consumer();

  DiagnosticPolicy policy_;
  DiagnosticFormat format_ = DiagnosticFormat::Text;
  bool colorStdout_ = false;
  bool colorStderr_ = false;
  bool quiet_ = false;  // -q
  std::unique_ptr<DiagnosticConsumer> consumer_;  // on stderr; made by consumer() when first needed
  SarifConsumer* sarif_ = nullptr;                // consumer_, when the format is SARIF
};

}  // namespace reshardctl
