// Reading single values out of an op's verbatim attribute dictionary
// (`{k1:v1,k2:v2}`, as printed) and writing a new dictionary the way
// IrPrinter::PrintAttributeMap does (keys sorted by byte order, joined ",").
// Only the few attributes the pass copies or derives are ever looked at, so
// the dictionary stays verbatim text everywhere else.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace reshardctl {

// The value text of top-level `key` in `dict`, or nullopt when absent.
std::optional<std::string_view> findAttribute(std::string_view dict, std::string_view key);

// Element `index` of a bool array value such as `[true,false]`; nullopt when
// the text is not such an array or is too short.
std::optional<bool> boolArrayElement(std::string_view array, size_t index);

// `{k1:v1,k2:v2}` with the keys sorted.
std::string writeAttributes(std::vector<std::pair<std::string_view, std::string>> entries);

}  // namespace reshardctl
