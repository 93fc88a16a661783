#include "support/text.h"

#include <fmt/format.h>

namespace reshardctl {

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
