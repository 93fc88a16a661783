#include "ir/string_pool.h"

#include <cstring>

namespace reshardctl {

std::string_view StringPool::intern(std::string_view text) {
  if (auto it = index_.find(text); it != index_.end()) return *it;
  char* copy = static_cast<char*>(storage_.allocate(text.size() ? text.size() : 1, 1));
  if (!text.empty()) std::memcpy(copy, text.data(), text.size());
  std::string_view stable(copy, text.size());
  index_.insert(stable);
  return stable;
}

}  // namespace reshardctl
