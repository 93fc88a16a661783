#include "syntax/attribute_text.h"

#include <algorithm>

namespace reshardctl {

namespace {

// Calls visit(item) for each item of `text` split at the commas outside
// brackets, braces, parens, angles and strings (attribute values nest all of
// them), until visit returns true; returns whether it did. No allocation: the
// pass looks up attributes of every op it resharded.
template <typename Visit>
bool anyTopLevelItem(std::string_view text, Visit visit) {
  int depth = 0;
  bool inString = false;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') inString = true;
    else if (c == '{' || c == '[' || c == '(' || c == '<') ++depth;
    else if (c == '}' || c == ']' || c == ')' || c == '>') --depth;
    else if (c == ',' && depth == 0) {
      if (visit(text.substr(start, i - start))) return true;
      start = i + 1;
    }
  }
  return start < text.size() && visit(text.substr(start));
}

std::vector<std::string_view> topLevelItems(std::string_view text) {
  std::vector<std::string_view> items;
  anyTopLevelItem(text, [&](std::string_view item) {
    items.push_back(item);
    return false;
  });
  return items;
}

std::string_view inside(std::string_view text, char open, char close) {
  if (text.size() < 2 || text.front() != open || text.back() != close) return {};
  return text.substr(1, text.size() - 2);
}

}  // namespace

std::optional<std::string_view> findAttribute(std::string_view dict, std::string_view key) {
  std::optional<std::string_view> value;
  anyTopLevelItem(inside(dict, '{', '}'), [&](std::string_view item) {
    if (item.size() > key.size() && item.starts_with(key) && item[key.size()] == ':')
      value = item.substr(key.size() + 1);
    return value.has_value();
  });
  return value;
}

std::optional<bool> boolArrayElement(std::string_view array, size_t index) {
  std::vector<std::string_view> items = topLevelItems(inside(array, '[', ']'));
  if (index >= items.size()) return std::nullopt;
  if (items[index] == "true") return true;
  if (items[index] == "false") return false;
  return std::nullopt;
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
