// Interned text. The IR keeps attribute and type text verbatim; interning it
// lets the input buffer be released while parsing (peak memory stays near the
// size of the IR, not input + IR) and makes repeated text free.
#pragma once

#include <string_view>
#include <unordered_set>

#include "ir/arena.h"

namespace reshardctl {

class StringPool {
 public:
  // Returns a view of a stable copy of `text`; equal texts share one copy.
  std::string_view intern(std::string_view text);

 private:
  Arena storage_;
  std::unordered_set<std::string_view> index_;
};

}  // namespace reshardctl
