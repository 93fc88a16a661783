#include "support/text.h"

#include <fmt/format.h>

namespace reshardctl {

namespace {
bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
}  // namespace

std::string_view trim(std::string_view text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && isBlank(text[begin])) ++begin;
  while (end > begin && isBlank(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}

std::string plural(size_t count, std::string_view one, std::string_view many) {
  if (count == 1) return fmt::format("1 {}", one);
  if (many.empty()) return fmt::format("{} {}s", count, one);
  return fmt::format("{} {}", count, many);
}

}  // namespace reshardctl
