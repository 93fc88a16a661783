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

std::string_view trimStart(std::string_view text) {
  size_t begin = 0;
  while (begin < text.size() && isBlank(text[begin])) ++begin;
  return text.substr(begin);
}

std::string plural(size_t count, std::string_view one, std::string_view many) {
  if (count == 1) return fmt::format("1 {}", one);
  if (many.empty()) return fmt::format("{} {}s", count, one);
  return fmt::format("{} {}", count, many);
}

std::string countedIn(size_t items, std::string_view item, size_t containers, std::string_view container) {
  if (items == containers) return plural(containers, container);
  return fmt::format("{} of {}", plural(items, item), plural(containers, container));
}

}  // namespace reshardctl
