#include "ir/diagnostics.h"

#include <algorithm>

#include <fmt/format.h>

namespace reshardctl {

namespace {

constexpr size_t kMaxShownLine = 160;  // longer lines are clipped around the column
constexpr size_t kContext = 60;        // bytes shown left of the column when clipping

const char* severityName(Severity severity) {
  switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

// Control bytes would garble the terminal and the caret column: show '?'.
std::string printable(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\t') || byte == 0x7f) c = '?';
  }
  return out;
}

void appendSnippet(std::string& out, const SourceFile& source, const Diagnostic& d) {
  std::string_view line = source.lineAt(d.offset);
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
  out += prefix + printable(line) + suffix + '\n';
  size_t col = column - first;  // within the shown part of the line
  std::string caret(prefix.size(), ' ');
  for (size_t i = 0; i < col && i < line.size(); ++i) caret += line[i] == '\t' ? '\t' : ' ';
  if (col > line.size()) caret.append(col - line.size(), ' ');
  caret += '^';
  size_t room = line.size() > col ? line.size() - col : 1;
  size_t underline = std::min(std::max<size_t>(d.length, 1), room);
  if (underline > 1) caret.append(underline - 1, '~');
  out += caret + '\n';
}

void appendOne(std::string& out, const SourceFile* source, const Diagnostic& d) {
  if (d.offset == Diagnostic::kNoLocation || source == nullptr) {
    // Not about a place in the input (an unreadable file, a missing GPU): the
    // tool speaks, as compilers do for such errors.
    out += fmt::format("reshardctl: {}: {}\n", severityName(d.severity), d.message);
    return;
  }
  SourceFile::LineCol where = source->lineCol(d.offset);
  out += fmt::format("{}:{}:{}: {}: {}\n", source->name(), where.line, where.column,
                     severityName(d.severity), d.message);
  appendSnippet(out, *source, d);
}

}  // namespace

std::string formatDiagnostic(const SourceFile* source, const Diagnostic& diagnostic) {
  std::string out;
  appendOne(out, source, diagnostic);
  for (const Diagnostic& note : diagnostic.notes) appendOne(out, source, note);
  return out;
}

Diagnostic& DiagnosticEngine::error(size_t offset, size_t length, std::string message) {
  ++errors_;
  return diagnostics_.emplace_back(Diagnostic{Severity::Error, offset, length, std::move(message), {}});
}

Diagnostic& DiagnosticEngine::warning(size_t offset, size_t length, std::string message) {
  ++warnings_;
  return diagnostics_.emplace_back(
      Diagnostic{Severity::Warning, offset, length, std::move(message), {}});
}

Diagnostic& DiagnosticEngine::error(std::string message) {
  return error(Diagnostic::kNoLocation, 0, std::move(message));
}

void DiagnosticEngine::clear() {
  diagnostics_.clear();
  errors_ = 0;
  warnings_ = 0;
}

std::string DiagnosticEngine::render(bool showWarnings) const {
  std::vector<const Diagnostic*> order;
  for (const Diagnostic& d : diagnostics_)
    if (showWarnings || d.severity != Severity::Warning) order.push_back(&d);
  std::stable_sort(order.begin(), order.end(), [](const Diagnostic* a, const Diagnostic* b) {
    return a->offset < b->offset;
  });
  std::string out;
  for (const Diagnostic* d : order) out += formatDiagnostic(source_, *d);
  return out;
}

void DiagnosticEngine::flush(std::FILE* out, bool showWarnings) {
  std::string text = render(showWarnings);
  std::fwrite(text.data(), 1, text.size(), out);
  std::fflush(out);
  diagnostics_.clear();
}

}  // namespace reshardctl
