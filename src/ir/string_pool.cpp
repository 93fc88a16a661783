#include "ir/string_pool.h"

#include <cstring>

namespace reshardctl {

std::string_view StringPool::intern(std::string_view text) {
  const uint64_t hash = hashText(text);
  if (const auto* found = index_.findSlot(text, hash)) return found->key;
  char* copy = static_cast<char*>(storage_.allocate(text.size() ? text.size() : 1, 1));
  if (!text.empty()) std::memcpy(copy, text.data(), text.size());
  std::string_view stable(copy, text.size());
  index_.insert(stable, hash, true);
  return stable;
}

}  // namespace reshardctl
