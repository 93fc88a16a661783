#include "syntax/attribute_dictionary.h"

#include <algorithm>
#include <string>

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

// `{e1,e2,...}`, each entry appended by `append(out, entry)`: the
// separators IrPrinter::PrintAttributeMap writes.
template <typename Entries, typename Append>
std::string joinedDictionary(const Entries& entries, Append append) {
  std::string out = "{";
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i) out += ',';
    append(out, entries[i]);
  }
  return out + "}";
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
  return joinedDictionary(entries, [](std::string& out, const auto& entry) {
    out += entry.first;
    out += ':';
    out += entry.second;
  });
}

namespace parsing {

namespace {

// `read.distText` in storage that outlives the input: inside `interned` (which
// holds it verbatim unless the entries were reordered), else a copy.
std::string_view stableDistText(const DictionaryRead& read, std::string_view interned, StringPool& strings) {
  size_t verbatimAt = static_cast<size_t>(read.distText.data() - read.text.data());
  if (verbatimAt + read.distText.size() <= interned.size() &&
      interned.substr(verbatimAt, read.distText.size()) == read.distText)
    return interned.substr(verbatimAt, read.distText.size());
  size_t keyAt = interned.find(read.distText);
  return keyAt == std::string_view::npos ? strings.intern(read.distText)
                                         : interned.substr(keyAt, read.distText.size());
}

template <typename Slot, size_t N>
void replaceOldest(Slot (&slots)[N], uint8_t& next, const Slot& slot) {
  slots[next] = slot;
  next = static_cast<uint8_t>((next + 1) % N);
}

}  // namespace

// Paddle prints `{k:v,...}` with no spaces between entries, the keys sorted
// since autumn 2023 and in the order of the op's unordered AttributeMap before
// (IrPrinter::PrintAttributeMap, docs/format.md "Op lines"): a dictionary so
// joined is kept as read, sorted or not; one written otherwise (spaces, a key
// twice) is brought to the sorted form. The entries end up sorted either way,
// which is what reportDuplicateKeys compares.
std::string_view keptDictionary(DictionaryRead& read, StringPool& strings) {
  if (!read.knownText.empty()) return read.knownText;
  if (read.text.empty()) return "{}";
  auto byKey = [](const auto& a, const auto& b) { return a.first < b.first; };
  auto notBefore = [](const auto& a, const auto& b) { return !(a.first < b.first); };
  auto sameKey = [](const auto& a, const auto& b) { return a.first == b.first; };
  size_t canonicalSize = read.entries.empty() ? 2 : 1 + read.entries.size();
  for (const auto& entry : read.entries) canonicalSize += entry.second.size();
  bool sortedUnique =
      std::adjacent_find(read.entries.begin(), read.entries.end(), notBefore) == read.entries.end();
  if (!sortedUnique) std::stable_sort(read.entries.begin(), read.entries.end(), byKey);
  bool unique = sortedUnique ||
                std::adjacent_find(read.entries.begin(), read.entries.end(), sameKey) == read.entries.end();
  if (read.text.size() == canonicalSize && unique) {
    read.verbatim = true;
    return strings.intern(read.text);
  }
  return strings.intern(joinedDictionary(read.entries, [](std::string& out, const auto& entry) {
    out += entry.second;
  }));
}

const AttributeMemo::PerName* AttributeMemo::find(std::string_view opName) const {
  if (!recognise_) return nullptr;
  return byName_.find(opName);
}

size_t AttributeMemo::recallDictionary(std::string_view opName, std::string_view input,
                                       DictionaryRead& read) const {
  const PerName* recent = find(opName);
  if (!recent) return 0;
  for (const Dict& dict : recent->dicts) {
    if (dict.text.empty() || !input.starts_with(dict.text)) continue;
    read.text = input.substr(0, dict.text.size());
    read.knownText = dict.text;
    if (dict.distSize) {
      read.distText = read.text.substr(dict.distOffset, dict.distSize);
      read.knownDist = dict.dist;
    }
    return dict.text.size();
  }
  return 0;
}

size_t AttributeMemo::recallDist(std::string_view opName, std::string_view input, DictionaryRead& read) const {
  const PerName* recent = find(opName);
  if (!recent) return 0;
  for (const Dist& dist : recent->dists) {
    if (!dist.attr || !input.starts_with(dist.text)) continue;
    // The value must end where the remembered one did: `{...}x` is another value.
    if (input.size() > dist.text.size() && !grammar::endsTopLevelValue(input[dist.text.size()])) continue;
    read.distText = input.substr(0, dist.text.size());
    read.knownDist = dist.attr;
    return dist.text.size();
  }
  return 0;
}

const OpDistAttr* AttributeMemo::distReadFrom(DictionaryRead& read) const {
  const auto* found = distByText_.findSlot(read.distText, hashText(read.distText));
  if (!found) return nullptr;
  read.distSharedText = found->key;
  return found->value;
}

void AttributeMemo::learn(std::string_view opName, const DictionaryRead& read, std::string_view interned,
                          const OpDistAttr* dist, StringPool& strings) {
  if (!read.knownText.empty()) return;  // recognised whole: nothing new
  PerName* recent = recognise_ ? &byName_.insert(opName, PerName{}).value : nullptr;
  if (!read.distText.empty() && !read.knownDist) {
    std::string_view stable = read.distSharedText;
    if (stable.empty()) {
      stable = stableDistText(read, interned, strings);
      distByText_.insert(stable, dist);
    }
    if (recent) replaceOldest(recent->dists, recent->nextDist, Dist{stable, dist});
  }
  // A dictionary read as printed (interned verbatim, so nothing about it was
  // reported) can be recognised whole.
  if (!recent || !read.verbatim) return;
  Dict known{interned, 0, 0, dist};
  if (!read.distText.empty()) {
    known.distOffset = static_cast<uint32_t>(read.distText.data() - read.text.data());
    known.distSize = static_cast<uint32_t>(read.distText.size());
  }
  replaceOldest(recent->dicts, recent->nextDict, known);
}

}  // namespace parsing

}  // namespace reshardctl
