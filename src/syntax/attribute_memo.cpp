#include "syntax/attribute_memo.h"

#include "grammar/top_level_scan.h"

namespace reshardctl::parsing {

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

const AttributeMemo::PerName* AttributeMemo::find(std::string_view opName) const {
  if (!recognise_) return nullptr;
  auto found = byName_.find(opName);
  return found == byName_.end() ? nullptr : &found->second;
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

const OpDistAttr* AttributeMemo::distReadFrom(std::string_view text) const {
  auto found = distByText_.find(text);
  return found == distByText_.end() ? nullptr : found->second;
}

void AttributeMemo::learn(std::string_view opName, const DictionaryRead& read, std::string_view interned,
                          const OpDistAttr* dist, StringPool& strings) {
  if (!read.knownText.empty()) return;  // recognised whole: nothing new
  PerName* recent = recognise_ ? &byName_[opName] : nullptr;
  if (!read.distText.empty() && !read.knownDist) {
    std::string_view stable = stableDistText(read, interned, strings);
    distByText_.emplace(stable, dist);
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

}  // namespace reshardctl::parsing
