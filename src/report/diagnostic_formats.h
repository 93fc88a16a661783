// The machine-readable forms of diagnostics (`--error-format`), consumers of
// the one reporting path (ir/diagnostics.h) beside its text form:
//
//   json    one JSON object per line: {"file","line","col","end_col",
//           "severity","code","message"} (schema/diagnostic.schema.json)
//   github  GitHub Actions workflow commands, which annotate the lines of a
//           pull request: ::error file=F,line=L,col=C,endColumn=E,title=CODE::MESSAGE
//   sarif   one SARIF 2.1.0 log for the whole run (GitHub code scanning and
//           other SARIF viewers), written when the run ends
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/diagnostics.h"

namespace reshardctl {

enum class DiagnosticFormat { Text, Json, GitHub, Sarif };

// Codes of the diagnostics the commands report beside the parser's, the
// verifier's, lint.h's and apply --check's (all listed as SARIF rules):
inline constexpr const char* kDivergenceCode = "divergence";  // validate: a result differs from the serial one
inline constexpr const char* kNoProgramCode = "no-program";   // list: a file holding no program
inline constexpr const char* kScheduleFindingCode = "schedule-finding";  // schedule: ranks that would hang or mismatch
inline constexpr const char* kControlFlowCommCode = "control-flow-comm";  // schedule: a call inside pd_op.if/while
inline constexpr const char* kPassDiffersCode = "pass-differs";  // check-pass: Paddle's pass output is not ours

// "text", "json", "github", "sarif"; false for anything else.
bool parseDiagnosticFormat(std::string_view name, DiagnosticFormat* format);

// One diagnostic (a note is one too) as a JSON-lines record.
nlohmann::ordered_json diagnosticJson(const SourceFile* source, const Diagnostic& diagnostic);

class JsonLinesConsumer final : public DiagnosticConsumer {
 public:
  explicit JsonLinesConsumer(OutputSink& out) : out_(out) {}
  void consume(const SourceFile* source, const std::vector<const Diagnostic*>& diagnostics) override;

 private:
  OutputSink& out_;
};

class GitHubConsumer final : public DiagnosticConsumer {
 public:
  explicit GitHubConsumer(OutputSink& out) : out_(out) {}
  void consume(const SourceFile* source, const std::vector<const Diagnostic*>& diagnostics) override;

 private:
  OutputSink& out_;
};

// One workflow command line (with its newline) for a diagnostic.
std::string githubCommand(const SourceFile* source, const Diagnostic& diagnostic);

// Collects every input's diagnostics into one SARIF run; document() is the
// log. Diagnostics not about a place in an input (unreadable files, usage
// problems) become tool execution notifications, and make the run count as
// not successful.
class SarifConsumer final : public DiagnosticConsumer {
 public:
  explicit SarifConsumer(std::string toolVersion);
  void consume(const SourceFile* source, const std::vector<const Diagnostic*>& diagnostics) override;
  nlohmann::ordered_json document() const;

 private:
  std::string toolVersion_;
  nlohmann::ordered_json results_ = nlohmann::ordered_json::array();
  nlohmann::ordered_json notifications_ = nlohmann::ordered_json::array();
};

// A file name as a SARIF artifact URI: relative paths stay relative (GitHub
// resolves them against the repository root), with reserved bytes escaped.
std::string sarifUri(std::string_view path);

}  // namespace reshardctl
