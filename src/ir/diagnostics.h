// The one reporting path for problems with the input: every error, warning
// and note goes through a DiagnosticEngine, and the engine hands them, sorted
// by place, to one DiagnosticConsumer. The text consumer prints
//
//   file:line:col: error: message
//   <the source line>
//         ^~~~
//
// (report/diagnostic_formats.h has the JSON-lines, GitHub and SARIF ones).
// The engine also applies what the user asked about diagnostics: which named
// warnings are off or are errors (-W flags) and how many errors to report
// before stopping (--max-errors).
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/source.h"
#include "support/output_sink.h"

namespace reshardctl {

enum class Severity { Error, Warning, Note };

const char* severityName(Severity severity);

struct Diagnostic {
  static constexpr size_t kNoLocation = static_cast<size_t>(-1);
  Diagnostic() = default;
  Diagnostic(Severity severity_, size_t offset_, size_t length_, std::string message_,
             std::vector<Diagnostic> notes_ = {}, std::string code_ = {}, bool warningFlag_ = false)
      : severity(severity_), offset(offset_), length(length_), message(std::move(message_)),
        notes(std::move(notes_)), code(std::move(code_)), warningFlag(warningFlag_) {}

  Severity severity = Severity::Error;
  size_t offset = kNoLocation;  // byte offset into the source
  size_t length = 1;            // bytes to underline
  // One line: the text consumer shows a newline in it as `\x0a` (a file name
  // or a label quoted in it cannot start a line of its own).
  std::string message;
  // Lines shown under the message as they are (a table of a log's programs):
  // made for a terminal by the code that adds them, each cell escaped.
  std::string listing;
  std::vector<Diagnostic> notes;  // printed right after this one
  // A stable name for tools (JSON "code", SARIF ruleId): a warning's -W name
  // ("uneven-shards"), or a kind of error ("syntax-error", "invalid-program",
  // "tool-error" for problems not about a place in the input).
  std::string code;
  bool warningFlag = false;  // `code` is a -W name: the text shows [-Wcode] or [-Werror=code]
};

// The message and, on the lines after it, the listing: what the structured
// forms (JSON, GitHub, SARIF) carry as one text.
std::string messageWithListing(const Diagnostic& diagnostic);
// `text` split for a diagnostic: its first line the message, the lines after
// it (the tool's own: the libraries a backend tried) the listing, escaped
// for a terminal.
void setMessageAndListing(Diagnostic& diagnostic, std::string_view text);

// Thrown by the parsing layers for an error that ends the parse.
struct InputError {
  size_t offset;
  size_t length;
  std::string message;
};

// What the command line says about diagnostics.
struct DiagnosticPolicy {
  enum class State { On, Off, Error };
  // -W flags in command-line order: {name, state}; the empty name is every
  // warning (-Werror, -Wall). The last rule naming a warning decides.
  std::vector<std::pair<std::string, State>> warningRules;
  size_t maxErrors = 20;  // errors reported before stopping; 0 = no limit

  State stateOf(std::string_view warning) const;
};

// Where a diagnostic sits, for the machine-readable formats. Columns count
// bytes from 1; endColumn is one past the last marked byte, on the same line.
struct DiagnosticPlace {
  size_t line = 0;
  size_t column = 0;
  size_t endColumn = 0;
};
// False when the diagnostic is not about a place in `source` (or there is none).
bool placeOf(const SourceFile* source, const Diagnostic& diagnostic, DiagnosticPlace* place);

// Receives each engine's diagnostics when it is flushed: those of one input.
class DiagnosticConsumer {
 public:
  virtual ~DiagnosticConsumer() = default;
  // `source` is the input the diagnostics are about (null when none was read).
  virtual void consume(const SourceFile* source, const std::vector<const Diagnostic*>& diagnostics) = 0;
};

struct TextStyle {
  bool color = false;     // ANSI colours (a terminal that asked for them)
  bool snippets = true;   // the source line and a caret under each located one
};

// Renders one diagnostic (and its notes) as text, ending in a newline.
std::string formatDiagnostic(const SourceFile* source, const Diagnostic& diagnostic, TextStyle style = {});

// The compiler-style text, written to a sink and flushed.
class TextDiagnosticConsumer final : public DiagnosticConsumer {
 public:
  TextDiagnosticConsumer(OutputSink& out, TextStyle style) : out_(out), style_(style) {}
  void consume(const SourceFile* source, const std::vector<const Diagnostic*>& diagnostics) override;

 private:
  OutputSink& out_;
  TextStyle style_;
};

class DiagnosticEngine {
 public:
  // Inline: a run without a diagnostic makes engines but never enters this file.
  explicit DiagnosticEngine(const SourceFile* source = nullptr, const DiagnosticPolicy* policy = nullptr)
      : source_(source), policy_(policy) {}

  void setSource(const SourceFile* source) { source_ = source; }
  const SourceFile* source() const { return source_; }
  Diagnostic& error(size_t offset, size_t length, std::string message);
  // A named warning (`name` is what -W flags use): dropped when the policy
  // turns it off, an error when the policy says so.
  Diagnostic& warning(std::string_view name, size_t offset, size_t length, std::string message);
  // A problem not tied to a place in the input ("cannot read 'x'").
  Diagnostic& error(std::string message);

  size_t errorCount() const { return errors_; }
  size_t warningCount() const { return warnings_; }
  // True once more errors came than the policy's limit: the rest are dropped
  // and one error says so. Parsers stop there.
  bool limitReached() const { return limitReached_; }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

  // Forgets everything reported so far (e.g. errors about text that turned
  // out not to be the input's).
  void clear();

  // Stable-sorts by location (MLIR reports leftovers this way), hands them to
  // `consumer` and forgets them.
  void flush(DiagnosticConsumer& consumer, bool showWarnings = true);
  void flush(OutputSink& out, bool showWarnings = true);  // plain text
  std::string render(bool showWarnings = true) const;    // plain text
  // The diagnostics in the order flush() hands them on.
  std::vector<const Diagnostic*> sorted(bool showWarnings = true) const;

 private:
  Diagnostic& add(Diagnostic diagnostic);

  const SourceFile* source_;
  const DiagnosticPolicy* policy_;
  std::vector<Diagnostic> diagnostics_;
  Diagnostic discarded_;  // what a dropped diagnostic's caller writes notes into
  size_t errors_ = 0;
  size_t warnings_ = 0;
  bool limitReached_ = false;
};

}  // namespace reshardctl
