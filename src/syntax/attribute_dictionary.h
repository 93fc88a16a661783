// An op's attribute dictionary `{k1:v1,k2:v2}` as text: split into its
// top-level entries (values kept verbatim), one value looked up, and a new
// dictionary written the way IrPrinter::PrintAttributeMap does (keys sorted by
// byte order, joined ","). The IR keeps the dictionary as one span; tools that
// name or drop single attributes (the pass, diff, JSON export, views) read it
// here. Every split is grammar/top_level_scan.h's scan, the one the grammar
// reads values with.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace reshardctl {

struct AttributeEntry {
  std::string_view key;
  std::string_view value;  // verbatim, e.g. `[true]` or `{mesh:{...},...}`
};

// The entries of `dictionary`, split at the commas that are not inside
// brackets or a string, each key and value without surrounding whitespace.
// Text that is not a `{...}` dictionary (the parser never produces one)
// yields no entries; a stray closer ends the split.
std::vector<AttributeEntry> splitAttributes(std::string_view dictionary);

// The value text of top-level `key` in `dict`, or nullopt when absent. No
// allocation: the pass looks up attributes of every op it resharded.
std::optional<std::string_view> findAttribute(std::string_view dict, std::string_view key);

// Element `index` of a bool array value such as `[true,false]`; nullopt when
// the text is not such an array or is too short.
std::optional<bool> boolArrayElement(std::string_view array, size_t index);

// `{k1:v1,k2:v2}` with the keys sorted.
std::string writeAttributes(std::vector<std::pair<std::string_view, std::string>> entries);

}  // namespace reshardctl
