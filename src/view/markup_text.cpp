#include "view/markup_text.h"

#include <cstdint>

namespace reshardctl {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the UTF-8 sequence starting at text[i], or 0 when the bytes
// there are not one (overlong forms, surrogates and values past U+10FFFF included).
size_t utf8Length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t lead = byte(i);
  if (lead < 0x80) return 1;
  struct Form {
    uint8_t mask, bits;  // the lead byte's marker
    size_t length;
    uint32_t min;        // smaller values are overlong
  };
  static constexpr Form kForms[] = {{0xE0, 0xC0, 2, 0x80}, {0xF0, 0xE0, 3, 0x800}, {0xF8, 0xF0, 4, 0x10000}};
  size_t length = 0;
  uint32_t min = 0;
  uint32_t code = 0;
  for (const Form& form : kForms)
    if ((lead & form.mask) == form.bits) {
      length = form.length;
      min = form.min;
      code = lead & static_cast<uint8_t>(~form.mask);
    }
  if (length == 0) return 0;
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3Fu);
  }
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

// Calls escape(char) for ASCII and copies valid multi-byte characters.
template <typename Escape>
void appendEscaped(std::string& out, std::string_view text, Escape&& escape) {
  for (size_t i = 0; i < text.size();) {
    const size_t length = utf8Length(text, i);
    if (length == 0) {
      out += kReplacement;
      ++i;
    } else if (length == 1) {
      escape(text[i++]);
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
}

}  // namespace

void appendDotString(std::string& out, std::string_view text) {
  appendEscaped(out, text, [&](char c) {
    if (c == '\n') out += "\\n";
    else if (c == '"' || c == '\\') (out += '\\') += c;
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) out += ' ';
    else out += c;
  });
}

void appendHtml(std::string& out, std::string_view text) {
  appendEscaped(out, text, [&](char c) {
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
