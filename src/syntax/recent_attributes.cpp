#include "syntax/recent_attributes.h"

#include "grammar/fast_scan.h"

namespace reshardctl::parsing {

const RecentAttributes::Dict* RecentAttributes::findDict(std::string_view opName, std::string_view input) const {
  const PerName* recent = find(opName);
  if (!recent) return nullptr;
  for (const Dict& dict : recent->dicts) {
    if (!dict.text.empty() && input.starts_with(dict.text)) return &dict;
  }
  return nullptr;
}

const RecentAttributes::Dist* RecentAttributes::findDist(std::string_view opName, std::string_view input) const {
  const PerName* recent = find(opName);
  if (!recent) return nullptr;
  for (const Dist& dist : recent->dists) {
    if (!dist.attr || !input.starts_with(dist.text)) continue;
    if (input.size() == dist.text.size() ||  // the value ends the input
        grammar::fast_scan_detail::endsTopLevelValue(input[dist.text.size()]))
      return &dist;
  }
  return nullptr;
}

void RecentAttributes::remember(std::string_view opName, const Dict& dict) {
  PerName& recent = byName_[opName];
  recent.dicts[recent.nextDict] = dict;
  recent.nextDict = static_cast<uint8_t>((recent.nextDict + 1) % kPerName);
}

void RecentAttributes::remember(std::string_view opName, const Dist& dist) {
  PerName& recent = byName_[opName];
  recent.dists[recent.nextDist] = dist;
  recent.nextDist = static_cast<uint8_t>((recent.nextDist + 1) % kPerName);
}

}  // namespace reshardctl::parsing
