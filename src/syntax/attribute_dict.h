// An op's attribute dictionary `{k1:v1,k2:v2}` split into its top-level
// entries, values kept as verbatim text. The IR keeps the dictionary as one
// span, verbatim (docs/format.md, "Attribute values"); tools that name or
// drop single attributes (diff, JSON export) split it on demand.
#pragma once

#include <string_view>
#include <vector>

namespace reshardctl {

struct AttributeEntry {
  std::string_view key;
  std::string_view value;  // verbatim, e.g. `[true]` or `{mesh:{...},...}`
};

// Splits at the commas that are not inside brackets or a string. Text that is
// not a `{...}` dictionary (the parser never produces one) yields no entries.
std::vector<AttributeEntry> splitAttributes(std::string_view dictionary);

}  // namespace reshardctl
