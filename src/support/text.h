// Text helpers every stage shares: one trim, one plural, one counted phrase,
// one decimal append.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace reshardctl {

// Space, tab, CR or LF: what trim removes.
inline bool isBlankChar(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// `text` without the spaces, tabs, CR and LF at either end. Inline: the log
// scanner (syntax/program_finder.h) trims every line.
inline std::string_view trim(std::string_view text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && isBlankChar(text[begin])) ++begin;
  while (end > begin && isBlankChar(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}
// `text` without those blanks at its start only.
inline std::string_view trimStart(std::string_view text) {
  size_t begin = 0;
  while (begin < text.size() && isBlankChar(text[begin])) ++begin;
  return text.substr(begin);
}

// `value` in decimal, appended to `out` (a std::string or anything with
// append(first, last)): no format string parsed, no string made.
template <typename Out>
void appendDecimal(Out& out, int64_t value) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  (void)ec;
  out.append(digits, end);
}

// "1 file", "3 files": `count` and the noun, in the plural unless count is 1.
// `many` defaults to `one` + "s".
// Verbs agree the same way: plural(n, "matches", "match").
std::string plural(size_t count, std::string_view one, std::string_view many = {});

// "3 files" where each container holds one item, else "5 programs of 3
// files": how many items (programs) the containers (files) held.
std::string countedIn(size_t items, std::string_view item, size_t containers, std::string_view container);

}  // namespace reshardctl
