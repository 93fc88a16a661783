// Interned text. The IR keeps attribute and type text verbatim; interning it
// lets the input buffer be released while parsing (peak memory stays near the
// size of the IR, not input + IR) and makes repeated text free.
#pragma once

#include <string_view>

#include "ir/arena.h"
#include "support/text_hash_table.h"

namespace reshardctl {

class StringPool {
 public:
  // Returns a view of a stable copy of `text`; equal texts share one copy.
  std::string_view intern(std::string_view text);

 private:
  Arena storage_;
  TextHashTable<bool> index_;  // the copies; the value is unused
};

}  // namespace reshardctl
