#include "support/escape.h"

#include <cstdint>
#include <cstring>

#include <fmt/format.h>

namespace reshardctl {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
// Graphviz reads a quoted string into a 16 KiB buffer: 2.43 refuses one of
// 16,383 bytes ("longer than 16384?"), so a DOT string stops short of it.
constexpr size_t kMaxDotString = 16000;

// One character of the text: its bytes and code point; `valid` false for a
// byte that starts no UTF-8 sequence (overlong forms, surrogates and values
// past U+10FFFF included), which is then the whole character.
struct Character {
  std::string_view bytes;
  uint32_t code = 0;
  bool valid = false;
};

Character characterAt(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t lead = byte(i);
  if (lead < 0x80) return {text.substr(i, 1), lead, true};
  struct Form {
    uint8_t mask, bits;  // the lead byte's marker
    size_t length;
    uint32_t min;        // smaller values are overlong
  };
  static constexpr Form kForms[] = {{0xE0, 0xC0, 2, 0x80}, {0xF0, 0xE0, 3, 0x800}, {0xF8, 0xF0, 4, 0x10000}};
  const Character invalid{text.substr(i, 1), lead, false};
  for (const Form& form : kForms) {
    if ((lead & form.mask) != form.bits) continue;
    if (i + form.length > text.size()) return invalid;
    uint32_t code = lead & static_cast<uint8_t>(~form.mask);
    for (size_t k = 1; k < form.length; ++k) {
      if ((byte(i + k) & 0xC0) != 0x80) return invalid;
      code = (code << 6) | (byte(i + k) & 0x3Fu);
    }
    if (code < form.min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return invalid;
    return {text.substr(i, form.length), code, true};
  }
  return invalid;
}

// Calls each(Character) for every character of `text`, in order.
template <typename Each>
void forEachCharacter(std::string_view text, Each&& each) {
  for (size_t i = 0; i < text.size();) {
    const Character c = characterAt(text, i);
    each(c);
    i += c.bytes.size();
  }
}

// Characters that reorder the text around them (Unicode's bidi controls).
bool isBidiControl(uint32_t code) {
  return (code >= 0x202A && code <= 0x202E) || (code >= 0x2066 && code <= 0x2069) || code == 0x200E ||
         code == 0x200F || code == 0x061C;
}

bool isControl(uint32_t code) { return code < 0x20 || (code >= 0x7F && code <= 0x9F); }

// What a terminal must not receive raw; `newlineSafe`: a newline is structure.
bool unsafeOnTerminal(const Character& c, bool newlineSafe) {
  if (!c.valid) return true;
  if (c.code == '\t' || (c.code == '\n' && newlineSafe)) return false;
  return isControl(c.code) || isBidiControl(c.code);
}

// `\x1b` for a byte (an ASCII control or invalid UTF-8), `\u202e` for a character.
void appendVisible(std::string& out, const Character& c) {
  if (!c.valid || c.code < 0x80) out += fmt::format("\\x{:02x}", static_cast<uint8_t>(c.bytes[0]));
  else out += fmt::format("\\u{:04x}", c.code);
}

// Printable ASCII (and tab, and newline where it is structure): most text,
// which then needs no decoding. Eight bytes a word, two words a turn: a word
// whose bytes are all in 0x20..0x7E is passed by a quick test; one holding
// another byte (a newline, mostly) by a test exact per byte (no carry or
// borrow crosses a byte), so a newline where it is structure costs no
// bytewise look.
bool plainAscii(std::string_view text, bool newlineSafe) {
  const auto plainByte = [newlineSafe](unsigned char byte) {
    return (byte >= 0x20 && byte < 0x7F) || byte == '\t' || (byte == '\n' && newlineSafe);
  };
  constexpr uint64_t kOnes = 0x0101010101010101u, kHigh = 0x8080808080808080u, kLow7 = kOnes * 0x7F;
  // The high bit of each byte that equals `value`.
  const auto equalBytes = [](uint64_t word, uint64_t value) {
    const uint64_t x = word ^ (kOnes * value);
    return ~(((x & kLow7) + kLow7) | x) & kHigh;
  };
  const uint64_t newlines = newlineSafe ? ~uint64_t{0} : 0;
  // Set high bits say some byte is < 0x20, == 0x7F or >= 0x80 (the usual
  // "has a byte less than" and "has a zero byte" word tricks).
  const auto flagged = [](uint64_t word) {
    const uint64_t below = (word - kOnes * 0x20) & ~word;
    const uint64_t notDel = word ^ (kOnes * 0x7F);
    const uint64_t del = (notDel - kOnes) & ~notDel;
    return (below | del | word) & kHigh;
  };
  const auto plainWord = [&](uint64_t word) {
    if (flagged(word) == 0) return true;
    const uint64_t printable = ((word & kLow7) + kOnes * 0x60) & ~word & kHigh;  // 0x20..0x7F
    return ((printable & ~equalBytes(word, 0x7F)) | equalBytes(word, '\t') | (equalBytes(word, '\n') & newlines)) ==
           kHigh;
  };
  size_t i = 0;
  for (; i + 16 <= text.size(); i += 16) {  // two words a turn: one test of both, mostly
    uint64_t words[2];
    std::memcpy(words, text.data() + i, 16);
    if ((flagged(words[0]) | flagged(words[1])) == 0) continue;
    if (!plainWord(words[0]) || !plainWord(words[1])) return false;
  }
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    if (!plainWord(word)) return false;
  }
  for (; i < text.size(); ++i)
    if (!plainByte(static_cast<unsigned char>(text[i]))) return false;
  return true;
}

std::string terminalEscaped(std::string_view text, bool newlineSafe) {
  if (plainAscii(text, newlineSafe)) return std::string(text);
  std::string out;
  out.reserve(text.size());
  forEachCharacter(text, [&](const Character& c) {
    if (unsafeOnTerminal(c, newlineSafe)) appendVisible(out, c);
    else out += c.bytes;
  });
  return out;
}

// Calls escape(char) for ASCII, copies other valid characters (bidi controls
// shown as `\u202e` when `showBidi`) and writes U+FFFD for invalid bytes:
// what the markup formats share.
// Runs of bytes `plain` leaves alone are copied whole (most of a label); only
// the runs between them are decoded. A plain byte is ASCII, so a run of the
// others never cuts a UTF-8 sequence that is valid.
template <typename Plain, typename Escape>
void appendMarkup(std::string& out, std::string_view text, bool showBidi, Plain&& plain, Escape&& escape) {
  while (!text.empty()) {
    size_t run = 0;
    while (run < text.size() && plain(text[run])) ++run;
    out.append(text.data(), run);
    text.remove_prefix(run);
    size_t other = 0;
    while (other < text.size() && !plain(text[other])) ++other;
    forEachCharacter(text.substr(0, other), [&](const Character& c) {
      if (!c.valid) out += kReplacement;
      else if (c.code < 0x80) escape(c.bytes[0]);
      else if (showBidi && isBidiControl(c.code)) appendVisible(out, c);
      else out += c.bytes;
    });
    text.remove_prefix(other);
  }
}

bool printableAscii(char c) { return c >= 0x20 && c < 0x7F; }

std::string githubEscaped(std::string_view text, bool property) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '%': out += "%25"; break;
      case '\r': out += "%0D"; break;
      case '\n': out += "%0A"; break;
      case ':': out += property ? "%3A" : ":"; break;
      case ',': out += property ? "%2C" : ","; break;
      default: out += c;
    }
  }
  return out;
}

// git's quote.c (sq_lookup / quote_c_style): which bytes force quoting and
// the C escape, if any, of each.
bool needsDiffQuoting(unsigned char byte) { return byte < 0x20 || byte == '"' || byte == '\\' || byte >= 0x7F; }

const char* cEscape(unsigned char byte) {
  switch (byte) {
    case '\a': return "\\a";
    case '\b': return "\\b";
    case '\t': return "\\t";
    case '\n': return "\\n";
    case '\v': return "\\v";
    case '\f': return "\\f";
    case '\r': return "\\r";
    case '"': return "\\\"";
    case '\\': return "\\\\";
  }
  return nullptr;
}

}  // namespace

std::string terminalText(std::string_view text) { return terminalEscaped(text, true); }

std::string terminalLine(std::string_view text) { return terminalEscaped(text, false); }

void escapeForTerminal(std::string& text) {
  if (!plainAscii(text, true)) text = terminalEscaped(text, true);
}

std::string terminalMasked(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  forEachCharacter(text, [&](const Character& c) {
    if (unsafeOnTerminal(c, false)) out.append(c.bytes.size(), '?');
    else out += c.bytes;
  });
  return out;
}

std::string diffHeaderName(std::string_view name) {
  bool plain = true;
  for (char c : name) plain = plain && !needsDiffQuoting(static_cast<unsigned char>(c));
  if (plain) return std::string(name);
  std::string out = "\"";
  for (char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (!needsDiffQuoting(byte)) out += c;
    else if (const char* escape = cEscape(byte)) out += escape;
    else out += fmt::format("\\{:03o}", byte);
  }
  return out + '"';
}

std::string githubData(std::string_view text) { return githubEscaped(text, false); }

// A property (a file name) is escaped for a terminal first, as the message
// is by its consumer: ESC, BEL or a bidi control in a name reaches neither.
std::string githubProperty(std::string_view text) { return githubEscaped(terminalText(text), true); }

std::string githubLogLine(std::string_view line) {
  std::string out = githubData(line);
  // The runner reads a line whose first non-blank characters are "::" as a command.
  const size_t first = out.find_first_not_of(" \t");
  if (first != std::string::npos && out.compare(first, 2, "::") == 0) out.replace(first, 1, "%3A");
  return out;
}

void appendDotString(std::string& out, std::string_view text) {
  const size_t start = out.size();
  appendMarkup(out, text, false, [](char c) { return printableAscii(c) && c != '"' && c != '\\'; }, [&](char c) {
    if (c == '\n') out += "\\n";
    else if (c == '"' || c == '\\') (out += '\\') += c;
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) out += ' ';
    else out += c;
  });
  if (out.size() - start <= kMaxDotString) return;
  // Cut before the last character that fits whole: not inside a UTF-8
  // sequence, not after the backslash that starts an escape.
  size_t cut = start + kMaxDotString - 3;
  while (cut > start && (static_cast<uint8_t>(out[cut]) & 0xC0) == 0x80) --cut;
  size_t backslashes = 0;
  while (cut - backslashes > start && out[cut - backslashes - 1] == '\\') ++backslashes;
  if (backslashes % 2 == 1) --cut;
  out.resize(cut);
  out += "...";
}

std::string dotComment(std::string_view text) { return "// " + terminalLine(text) + "\n"; }

void appendHtml(std::string& out, std::string_view text) {
  appendMarkup(out, text, true, [](char c) {
    return printableAscii(c) && c != '&' && c != '<' && c != '>' && c != '"' && c != '\'';
  }, [&](char c) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7F) out += ' ';
        else out += c;
    }
  });
}

std::string html(std::string_view text) {
  std::string out;
  appendHtml(out, text);
  return out;
}

}  // namespace reshardctl
