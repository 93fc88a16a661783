#include "syntax/attribute_dictionary.h"

#include <algorithm>

#include "grammar/top_level_scan.h"
#include "support/text.h"

namespace reshardctl {

namespace {

std::string_view inside(std::string_view text, char open, char close) {
  if (text.size() < 2 || text.front() != open || text.back() != close) return {};
  return text.substr(1, text.size() - 2);
}

// Calls visit(item) for each item of `text` split at its top-level commas
// (grammar::topLevelEnd, whitespace kept), until visit returns true; returns
// whether it did. An item that is not well-formed runs to the end of `text`;
// a stray closer ends the last item.
template <typename Visit>
bool anyTopLevelItem(std::string_view text, Visit visit) {
  const char* const end = text.data() + text.size();
  for (const char* p = text.data(); p < end;) {
    const char* itemEnd = grammar::topLevelEnd<false>(p, end);
    if (!itemEnd) itemEnd = end;
    if (visit(std::string_view(p, static_cast<size_t>(itemEnd - p)))) return true;
    if (itemEnd == end || *itemEnd != ',') return false;
    p = itemEnd + 1;
  }
  return false;
}

AttributeEntry entryOf(std::string_view item) {
  std::string_view entry = trim(item);
  size_t colon = entry.find(':');
  if (colon == std::string_view::npos) return {entry, {}};
  return {trim(entry.substr(0, colon)), trim(entry.substr(colon + 1))};
}

}  // namespace

std::vector<AttributeEntry> splitAttributes(std::string_view dictionary) {
  std::vector<AttributeEntry> entries;
  anyTopLevelItem(inside(dictionary, '{', '}'), [&](std::string_view item) {
    entries.push_back(entryOf(item));
    return false;
  });
  return entries;
}

std::optional<std::string_view> findAttribute(std::string_view dict, std::string_view key) {
  std::optional<std::string_view> value;
  anyTopLevelItem(inside(dict, '{', '}'), [&](std::string_view item) {
    AttributeEntry entry = entryOf(item);
    if (entry.key == key && item.find(':') != std::string_view::npos) value = entry.value;
    return value.has_value();
  });
  return value;
}

std::optional<bool> boolArrayElement(std::string_view array, size_t index) {
  std::optional<bool> element;
  size_t at = 0;
  bool reached = anyTopLevelItem(inside(array, '[', ']'), [&](std::string_view item) {
    if (at++ < index) return false;
    if (item == "true") element = true;
    if (item == "false") element = false;
    return true;
  });
  return reached ? element : std::nullopt;
}

std::string writeAttributes(std::vector<std::pair<std::string_view, std::string>> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out = "{";
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i) out += ',';
    out += entries[i].first;
    out += ':';
    out += entries[i].second;
  }
  return out + "}";
}

}  // namespace reshardctl
