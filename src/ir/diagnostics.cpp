#include "ir/diagnostics.h"

#include <algorithm>

#include <fmt/format.h>

#include "support/escape.h"
#include "support/palette.h"

namespace reshardctl {

namespace {

constexpr size_t kMaxShownLine = 160;  // longer lines are clipped around the column
constexpr size_t kContext = 60;        // bytes shown left of the column when clipping

Ink severityInk(Severity severity) {
  switch (severity) {
    case Severity::Error: return Ink::Error;
    case Severity::Warning: return Ink::Warning;
    case Severity::Note: return Ink::Note;
  }
  return Ink::Error;
}

bool located(const SourceFile* source, const Diagnostic& d) {
  return d.offset != Diagnostic::kNoLocation && source != nullptr;
}

void appendSnippet(std::string& out, const SourceFile& source, const Diagnostic& d, const Palette& palette) {
  // Cut past the widest part shown (a clipped line shows kMaxShownLine bytes
  // from at most the column), one byte more so that "..." still follows it.
  std::string_view line = source.lineAt(d.offset, kMaxShownLine + 1);
  SourceFile::LineCol where = source.lineCol(d.offset);
  size_t column = where.column - 1;  // 0-based, in bytes
  size_t first = 0;
  std::string prefix, suffix;
  if (line.size() > kMaxShownLine) {
    first = column > kContext ? column - kContext : 0;
    if (first > 0) prefix = "...";
    if (first + kMaxShownLine < line.size()) suffix = "...";
    line = line.substr(first, kMaxShownLine);
  }
  out += prefix + terminalMasked(line) + suffix + '\n';
  size_t col = column - first;  // within the shown part of the line
  std::string caret(prefix.size(), ' ');
  for (size_t i = 0; i < col && i < line.size(); ++i) caret += line[i] == '\t' ? '\t' : ' ';
  if (col > line.size()) caret.append(col - line.size(), ' ');
  caret += palette(Ink::Caret);
  caret += '^';
  size_t room = line.size() > col ? line.size() - col : 1;
  size_t underline = std::min(std::max<size_t>(d.length, 1), room);
  if (underline > 1) caret.append(underline - 1, '~');
  out += caret + palette.reset() + '\n';
}

// " [-Wuneven-shards]" after a named warning's message, as compilers name the flag.
std::string flagSuffix(const Diagnostic& d) {
  if (!d.warningFlag) return "";
  return d.severity == Severity::Error ? fmt::format(" [-Werror={}]", d.code) : fmt::format(" [-W{}]", d.code);
}

void appendListing(std::string& out, const Diagnostic& d) {
  if (d.listing.empty()) return;
  out += d.listing;
  if (out.back() != '\n') out += '\n';
}

void appendOne(std::string& out, const SourceFile* source, const Diagnostic& d, TextStyle style) {
  const Palette palette(style.color);
  const std::string severity =
      fmt::format("{}{}:{}", palette(severityInk(d.severity)), severityName(d.severity), palette.reset());
  const std::string message = terminalLine(d.message);
  if (!located(source, d)) {
    // Not about a place in the input (an unreadable file, a missing GPU): the
    // tool speaks, as compilers do for such errors.
    out += fmt::format("reshardctl: {} {}{}\n", severity, message, flagSuffix(d));
    appendListing(out, d);
    return;
  }
  SourceFile::LineCol where = source->lineCol(d.offset);
  out += fmt::format("{}{}:{}:{}:{} {} {}{}\n", palette(Ink::Bold), terminalLine(source->name()), where.line,
                     where.column, palette.reset(), severity, message, flagSuffix(d));
  appendListing(out, d);
  if (style.snippets) appendSnippet(out, *source, d, palette);
}

}  // namespace

std::string messageWithListing(const Diagnostic& diagnostic) {
  return diagnostic.listing.empty() ? diagnostic.message : diagnostic.message + "\n" + diagnostic.listing;
}

void setMessageAndListing(Diagnostic& diagnostic, std::string_view text) {
  const size_t newline = text.find('\n');
  diagnostic.message = std::string(text.substr(0, newline));
  diagnostic.listing = newline == std::string_view::npos ? "" : terminalText(text.substr(newline + 1));
}

const char* severityName(Severity severity) {
  switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

DiagnosticPolicy::State DiagnosticPolicy::stateOf(std::string_view warning) const {
  State state = State::On;
  for (const auto& [name, ruled] : warningRules)
    if (name.empty() || name == warning) state = ruled;
  return state;
}

bool placeOf(const SourceFile* source, const Diagnostic& d, DiagnosticPlace* place) {
  if (!located(source, d)) return false;
  const SourceFile::LineCol where = source->lineCol(d.offset);
  // The line read only as far as the underline reaches, and a byte more.
  const size_t reach = d.length < source->text().size() ? d.length + 1 : std::string_view::npos;
  const size_t lineLength = source->lineAt(d.offset, reach).size();
  const size_t lastColumn = std::max(lineLength + 1, where.column);  // one past the line's end
  place->line = where.line;
  place->column = where.column;
  place->endColumn = std::min(where.column + std::max<size_t>(d.length, 1), lastColumn);
  if (place->endColumn <= place->column) place->endColumn = place->column + 1;
  return true;
}

std::string formatDiagnostic(const SourceFile* source, const Diagnostic& diagnostic, TextStyle style) {
  std::string out;
  appendOne(out, source, diagnostic, style);
  for (const Diagnostic& note : diagnostic.notes) appendOne(out, source, note, style);
  return out;
}

void TextDiagnosticConsumer::consume(const SourceFile* source, const std::vector<const Diagnostic*>& diagnostics) {
  for (const Diagnostic* d : diagnostics) out_ += formatDiagnostic(source, *d, style_);
  out_.flush();
}

Diagnostic& DiagnosticEngine::add(Diagnostic diagnostic) {
  if (diagnostic.severity != Severity::Error) {
    ++warnings_;
    return diagnostics_.emplace_back(std::move(diagnostic));
  }
  const size_t limit = policy_ ? policy_->maxErrors : DiagnosticPolicy{}.maxErrors;
  if (limitReached_) return discarded_ = {};
  if (limit != 0 && errors_ == limit) {
    limitReached_ = true;
    ++errors_;
    diagnostics_.push_back(Diagnostic{Severity::Error, Diagnostic::kNoLocation, 0,
                                      fmt::format("{}too many errors: stopped after {} (--max-errors=N "
                                                  "sets the limit, 0 for none)",
                                                  source_ ? source_->name() + ": " : "", limit),
                                      {}, "too-many-errors", false});
    return discarded_ = {};
  }
  ++errors_;
  return diagnostics_.emplace_back(std::move(diagnostic));
}

Diagnostic& DiagnosticEngine::error(size_t offset, size_t length, std::string message) {
  return add(Diagnostic{Severity::Error, offset, length, std::move(message), {}, "invalid-program", false});
}

Diagnostic& DiagnosticEngine::warning(std::string_view name, size_t offset, size_t length, std::string message) {
  const DiagnosticPolicy::State state = policy_ ? policy_->stateOf(name) : DiagnosticPolicy::State::On;
  if (state == DiagnosticPolicy::State::Off) return discarded_ = {};
  const Severity severity = state == DiagnosticPolicy::State::Error ? Severity::Error : Severity::Warning;
  return add(Diagnostic{severity, offset, length, std::move(message), {}, std::string(name), true});
}

Diagnostic& DiagnosticEngine::error(std::string message) {
  return add(Diagnostic{Severity::Error, Diagnostic::kNoLocation, 0, std::move(message), {}, "tool-error", false});
}

void DiagnosticEngine::clear() {
  diagnostics_.clear();
  errors_ = 0;
  warnings_ = 0;
  limitReached_ = false;
}

std::vector<const Diagnostic*> DiagnosticEngine::sorted(bool showWarnings) const {
  std::vector<const Diagnostic*> order;
  for (const Diagnostic& d : diagnostics_)
    if (showWarnings || d.severity != Severity::Warning) order.push_back(&d);
  std::stable_sort(order.begin(), order.end(), [](const Diagnostic* a, const Diagnostic* b) {
    return a->offset < b->offset;
  });
  return order;
}

std::string DiagnosticEngine::render(bool showWarnings) const {
  std::string out;
  for (const Diagnostic* d : sorted(showWarnings)) out += formatDiagnostic(source_, *d);
  return out;
}

void DiagnosticEngine::flush(DiagnosticConsumer& consumer, bool showWarnings) {
  consumer.consume(source_, sorted(showWarnings));
  diagnostics_.clear();
}

void DiagnosticEngine::flush(OutputSink& out, bool showWarnings) {
  TextDiagnosticConsumer text(out, TextStyle{});
  flush(text, showWarnings);
}

}  // namespace reshardctl
