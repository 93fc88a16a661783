// The one place that makes text safe for where it goes. Every name, label,
// op name or message that reaches a destination passes the function for that
// destination; ordinary text comes out unchanged (see src/README.md, "Where
// output goes").
#pragma once

#include <string>
#include <string_view>

namespace reshardctl {

// Terminal (and any log a person reads): control characters (C0 but tab and
// newline, DEL, C1; so ESC, OSC, BEL and a lone CR), bidi controls (U+202A-E,
// U+2066-9, U+200E/F, U+061C) and invalid UTF-8 are shown escaped: `\x1b`,
// `\u202e`, `\xff`. A backslash is left as it is.
std::string terminalText(std::string_view text);
// terminalText in place: a text already safe (most) is not copied.
void escapeForTerminal(std::string& text);
// The same for text inside one line (a file name): a newline is `\n` too.
std::string terminalLine(std::string_view text);
// The same characters, each of their bytes shown as '?': the width in bytes
// is kept, so a caret under a source line still points at its column.
std::string terminalMasked(std::string_view text);

// A file name in a diff header (`--- NAME`), quoted as git quotes an unusual
// path (core.quotePath): a name holding a control byte, '"', '\\' or a byte
// >= 0x80 is written "..." with C escapes (\n, \t, \", \\, ...) and \NNN
// octal for other bytes; other names are written as they are, so patch -p0
// applies them.
std::string diffHeaderName(std::string_view name);

// GitHub workflow commands (`::error file=F,line=L::MESSAGE`), the runner's
// own rules: data escapes '%', CR and LF; a property value also ':' and ','
// (and is first escaped as terminalText escapes: `\x1b`, as the message is
// by the consumer that writes it).
std::string githubData(std::string_view text);
std::string githubProperty(std::string_view text);
// A plain line in a workflow's log (a per-input status line): escaped as data,
// and a leading "::" broken up, so it never reads as a command.
std::string githubLogLine(std::string_view line);

// Appends `text` as the inside of a DOT "..." string; a newline becomes the
// \n line break of a label, other control bytes a space. Bytes that are not
// UTF-8 become U+FFFD, so Graphviz reads the file. At most 16,000 bytes are
// appended (Graphviz's lexer refuses a longer string): a longer one is cut
// at a whole character and ends in "...".
void appendDotString(std::string& out, std::string_view text);
// "// TEXT\n": a DOT comment that a newline in `text` cannot end.
std::string dotComment(std::string_view text);

// Appends `text` escaped for HTML text and for "..." attribute values; bidi
// controls are shown as `\u202e` rather than reordering the page, bytes that
// are not UTF-8 become U+FFFD.
void appendHtml(std::string& out, std::string_view text);
std::string html(std::string_view text);

}  // namespace reshardctl
