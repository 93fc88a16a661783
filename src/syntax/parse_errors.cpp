#include "syntax/parse_errors.h"

#include <fmt/format.h>

namespace reshardctl {

std::string describeFound(const char* current, const char* end) {
  if (current >= end) return ", found end of input";
  auto byte = static_cast<unsigned char>(*current);
  if (byte == '\n' || byte == '\r') return ", found end of line";
  if (byte < 0x20 || byte >= 0x7f) return fmt::format(", found byte 0x{:02x}", byte);
  // Show the token: a run of word characters, or the single character.
  const char* stop = current;
  auto isWord = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '%';
  };
  while (stop < end && stop - current < 40 && isWord(*stop)) ++stop;
  if (stop == current) stop = current + 1;
  return fmt::format(", found '{}'", std::string_view(current, static_cast<size_t>(stop - current)));
}

std::string errorText(std::string_view message, const char* current, const char* end) {
  constexpr std::string_view kListNext = "expected ',' or ";
  if (message.substr(0, kListNext.size()) != kListNext || current >= end || *current != ',')
    return std::string(message) + describeFound(current, end);
  // "expected ',' or ')' in the operand list": what follows the closer names the list.
  const size_t closer = message.find('\'', kListNext.size() + 1);
  const std::string_view list = closer == std::string_view::npos ? "" : message.substr(closer + 1);
  return fmt::format("expected an item after ','{}", list) + describeFound(current + 1, end);
}

}  // namespace reshardctl
