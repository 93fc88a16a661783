// The tool's one set of terminal colours (ANSI SGR sequences), for
// diagnostics as compilers colour them and for diffs as git colours them.
// With colour off every ink is empty, so callers write the same text either way.
#pragma once

namespace reshardctl {

enum class Ink {
  Bold,         // a diagnostic's place
  Error,        // severities
  Warning,
  Note,
  Caret,        // the ^~~~ under a source line
  DiffHeader,   // --- / +++
  DiffHunk,     // @@ ... @@
  DiffRemoved,  // -line
  DiffAdded,    // +line
};

class Palette {
 public:
  explicit Palette(bool color) : color_(color) {}
  const char* operator()(Ink ink) const;
  const char* reset() const { return color_ ? "\x1b[0m" : ""; }

 private:
  bool color_;
};

}  // namespace reshardctl
