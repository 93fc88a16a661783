// The one reporting path for problems with the input: every error, warning
// and note goes through a DiagnosticEngine and is printed as
//
//   file:line:col: error: message
//   <the source line>
//         ^~~~
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "ir/source.h"

namespace reshardctl {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  static constexpr size_t kNoLocation = static_cast<size_t>(-1);
  Severity severity = Severity::Error;
  size_t offset = kNoLocation;  // byte offset into the source
  size_t length = 1;            // bytes to underline
  std::string message;
  std::vector<Diagnostic> notes;  // printed right after this one
};

// Thrown by the parsing layers for an error that ends the parse.
struct InputError {
  size_t offset;
  size_t length;
  std::string message;
};

// Renders one diagnostic (and its notes) as text, ending in a newline.
std::string formatDiagnostic(const SourceFile* source, const Diagnostic& diagnostic);

class DiagnosticEngine {
 public:
  explicit DiagnosticEngine(const SourceFile* source = nullptr) : source_(source) {}

  void setSource(const SourceFile* source) { source_ = source; }
  Diagnostic& error(size_t offset, size_t length, std::string message);
  Diagnostic& warning(size_t offset, size_t length, std::string message);
  // A problem not tied to a place in the input ("cannot read 'x'").
  Diagnostic& error(std::string message);

  size_t errorCount() const { return errors_; }
  size_t warningCount() const { return warnings_; }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

  // Forgets everything reported so far (e.g. errors about text that turned
  // out not to be the input's).
  void clear();

  // Stable-sorts by location (MLIR reports leftovers this way) and prints.
  void flush(std::FILE* out, bool showWarnings = true);
  std::string render(bool showWarnings = true) const;

 private:
  const SourceFile* source_;
  std::vector<Diagnostic> diagnostics_;
  size_t errors_ = 0;
  size_t warnings_ = 0;
};

}  // namespace reshardctl
