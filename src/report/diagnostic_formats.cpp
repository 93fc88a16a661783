#include "report/diagnostic_formats.h"

#include <fmt/format.h>

#include "passes/check_report.h"
#include "passes/lint.h"
#include "support/escape.h"

namespace reshardctl {

namespace {

using Json = nlohmann::ordered_json;

std::string dumpLine(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

void write(OutputSink& out, const std::string& text) {
  out += text;
  out.flush();
}

// The diagnostic followed by its notes, each on its own.
template <typename Each>
void forEachWithNotes(const std::vector<const Diagnostic*>& diagnostics, Each each) {
  for (const Diagnostic* d : diagnostics) {
    each(*d);
    for (const Diagnostic& note : d->notes) each(note);
  }
}

const char* githubCommandName(Severity severity) {
  switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "notice";
  }
  return "error";
}

// SARIF's result levels happen to be our severity names.
Json sarifMessage(const std::string& text) { return {{"text", text}}; }

// The code-point column of byte column `column` (both from 1) on `line`: the
// run says columnKind unicodeCodePoints, so a UTF-8 sequence counts once
// (each byte that does not continue a sequence starts a code point).
size_t codePointColumn(std::string_view line, size_t column) {
  const std::string_view before = line.substr(0, std::min(line.size(), column - 1));
  size_t points = 1 + (column - 1 - before.size());  // past the line's end: one column a byte
  for (unsigned char byte : before) points += (byte & 0xC0) != 0x80;
  return points;
}

Json sarifLocation(const SourceFile& source, const Diagnostic& d, const DiagnosticPlace& place) {
  const std::string_view line = source.lineAt(d.offset, place.endColumn - place.column);  // as far as the end column
  return {{"physicalLocation",
           {{"artifactLocation", {{"uri", sarifUri(source.name())}}},
            {"region", {{"startLine", place.line}, {"startColumn", codePointColumn(line, place.column)},
                        {"endColumn", codePointColumn(line, place.endColumn)}}}}}};
}

struct Rule {
  std::string id;
  std::string summary;
  Severity level;
};

// Every code a diagnostic can carry: the kinds of error, the named warnings
// of lint.h, apply --check's finding, validate's divergence, list's empty
// file and check-pass's difference.
std::vector<Rule> rules() {
  std::vector<Rule> all = {
      {"syntax-error", "the dump does not follow the PIR text format", Severity::Error},
      {"invalid-program", "the program breaks a rule of the IR or of the distribution model", Severity::Error},
      {"too-many-errors", "more errors than --max-errors; the rest were not reported", Severity::Error},
      {"tool-error", "a problem that is not about a place in the input (I/O, usage)", Severity::Error},
  };
  for (const LintWarning& warning : lintWarnings()) all.push_back({warning.name, warning.summary, Severity::Warning});
  all.push_back({kReshardNeeded, kReshardNeededSummary, Severity::Warning});
  all.push_back({kDivergenceCode, "validate: an op's result, assembled from its ranks, differs from the serial program's",
                 Severity::Error});
  all.push_back({kNoProgramCode, "list: the file holds no program", Severity::Error});
  all.push_back({kScheduleFindingCode,
                 "schedule: the ranks' communication calls mismatch or cannot all complete (a hang)", Severity::Error});
  all.push_back({kControlFlowCommCode, "schedule: a communication call inside control flow, not checked",
                 Severity::Warning});
  all.push_back({kPassDiffersCode, "check-pass: Paddle's program after the partition pass differs from ours",
                 Severity::Error});
  return all;
}

}  // namespace

bool parseDiagnosticFormat(std::string_view name, DiagnosticFormat* format) {
  if (name == "text") *format = DiagnosticFormat::Text;
  else if (name == "json") *format = DiagnosticFormat::Json;
  else if (name == "github") *format = DiagnosticFormat::GitHub;
  else if (name == "sarif") *format = DiagnosticFormat::Sarif;
  else return false;
  return true;
}

Json diagnosticJson(const SourceFile* source, const Diagnostic& d) {
  DiagnosticPlace place;
  const bool located = placeOf(source, d, &place);
  return {{"file", source ? Json(source->name()) : Json(nullptr)},
          {"line", located ? Json(place.line) : Json(nullptr)},
          {"col", located ? Json(place.column) : Json(nullptr)},
          {"end_col", located ? Json(place.endColumn) : Json(nullptr)},
          {"severity", severityName(d.severity)},
          {"code", d.code},
          {"message", messageWithListing(d)}};
}

void JsonLinesConsumer::consume(const SourceFile* source, const std::vector<const Diagnostic*>& diagnostics) {
  std::string text;
  forEachWithNotes(diagnostics, [&](const Diagnostic& d) { text += dumpLine(diagnosticJson(source, d)); });
  write(out_, text);
}

std::string githubCommand(const SourceFile* source, const Diagnostic& d) {
  std::string properties;
  DiagnosticPlace place;
  if (placeOf(source, d, &place))
    properties = fmt::format("file={},line={},col={},endColumn={},", githubProperty(source->name()), place.line,
                             place.column, place.endColumn);
  if (!d.code.empty()) properties += "title=" + githubProperty(d.code);
  if (!properties.empty() && properties.back() == ',') properties.pop_back();
  return fmt::format("::{}{}{}::{}\n", githubCommandName(d.severity), properties.empty() ? "" : " ", properties,
                     githubData(terminalText(messageWithListing(d))));
}

void GitHubConsumer::consume(const SourceFile* source, const std::vector<const Diagnostic*>& diagnostics) {
  std::string text;
  forEachWithNotes(diagnostics, [&](const Diagnostic& d) { text += githubCommand(source, d); });
  write(out_, text);
}

SarifConsumer::SarifConsumer(std::string toolVersion) : toolVersion_(std::move(toolVersion)) {}

void SarifConsumer::consume(const SourceFile* source, const std::vector<const Diagnostic*>& diagnostics) {
  for (const Diagnostic* d : diagnostics) {
    DiagnosticPlace place;
    if (!placeOf(source, *d, &place)) {
      notifications_.push_back({{"level", severityName(d->severity)}, {"message", sarifMessage(messageWithListing(*d))}});
      continue;
    }
    Json result = {{"ruleId", d->code.empty() ? "invalid-program" : d->code},
                   {"level", severityName(d->severity)},
                   {"message", sarifMessage(messageWithListing(*d))},
                   {"locations", Json::array({sarifLocation(*source, *d, place)})}};
    Json related = Json::array();
    for (const Diagnostic& note : d->notes) {
      DiagnosticPlace notePlace;
      if (!placeOf(source, note, &notePlace)) continue;
      Json location = sarifLocation(*source, note, notePlace);
      location["id"] = related.size();
      location["message"] = sarifMessage(messageWithListing(note));
      related.push_back(std::move(location));
    }
    if (!related.empty()) result["relatedLocations"] = std::move(related);
    results_.push_back(std::move(result));
  }
}

Json SarifConsumer::document() const {
  Json ruleList = Json::array();
  for (const Rule& rule : rules())
    ruleList.push_back({{"id", rule.id},
                        {"shortDescription", sarifMessage(rule.summary)},
                        {"defaultConfiguration", {{"level", severityName(rule.level)}}}});
  bool successful = true;
  for (const Json& notification : notifications_) successful &= notification["level"] != "error";
  Json run = {
      {"tool", {{"driver", {{"name", "reshardctl"}, {"version", toolVersion_}, {"rules", std::move(ruleList)}}}}},
      {"invocations", Json::array({{{"executionSuccessful", successful},
                                    {"toolExecutionNotifications", notifications_}}})},
      {"columnKind", "unicodeCodePoints"},
      {"results", results_}};
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", Json::array({std::move(run)})}};
}

std::string sarifUri(std::string_view path) {
  // RFC 3986 unreserved characters and '/' pass; everything else is %XX.
  std::string uri = path.size() > 0 && path[0] == '/' ? "file://" : "";
  for (char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    const bool plain = (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') || (byte >= '0' && byte <= '9') ||
                       c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    uri += plain ? std::string(1, c) : fmt::format("%{:02X}", byte);
  }
  return uri;
}

}  // namespace reshardctl
