#include "syntax/attribute_dict.h"

#include "support/text.h"

namespace reshardctl {

namespace {

// The end of the entry that starts at `i`: the first top-level ',' or the
// closing '}'. Brackets of any kind nest (the grammar balances them);
// `"..."` may hold any of them, and `\"`.
size_t entryEnd(std::string_view text, size_t i) {
  int depth = 0;
  bool quoted = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
      continue;
    }
    switch (c) {
      case '"': quoted = true; break;
      case '{': case '[': case '(': case '<': ++depth; break;
      case '}': case ']': case ')': case '>':
        if (depth == 0) return i;
        --depth;
        break;
      case ',':
        if (depth == 0) return i;
        break;
      default: break;
    }
  }
  return text.size();
}

}  // namespace

std::vector<AttributeEntry> splitAttributes(std::string_view dictionary) {
  std::vector<AttributeEntry> entries;
  if (dictionary.size() < 2 || dictionary.front() != '{' || dictionary.back() != '}') return entries;
  std::string_view body = dictionary.substr(1, dictionary.size() - 2);
  size_t i = 0;
  while (i < body.size()) {
    size_t end = entryEnd(body, i);
    std::string_view entry = trim(body.substr(i, end - i));
    size_t colon = entry.find(':');
    if (colon == std::string_view::npos) entries.push_back({entry, {}});
    else entries.push_back({trim(entry.substr(0, colon)), trim(entry.substr(colon + 1))});
    if (end >= body.size() || body[end] != ',') break;  // a stray closer: stop, never loop
    i = end + 1;
  }
  return entries;
}

}  // namespace reshardctl
