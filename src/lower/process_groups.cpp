#include "lower/process_groups.h"

namespace reshardctl {

int64_t ProcessGroups::ringOf(const std::vector<int64_t>& ranks) {
  membersAsked_ += ranks.size();
  auto found = byRanks_.find(ranks);
  if (found != byRanks_.end()) return found->second;
  const int64_t groupsInMap = static_cast<int64_t>(byRanks_.size()) + 1;  // group 0 is always there
  const int64_t ring = kNewRingIdBase + groupsInMap + 1;
  byRanks_.emplace(ranks, ring);
  sizes_.emplace(ring, ranks.size());
  return ring;
}

size_t ProcessGroups::sizeOf(int64_t ring) const {
  auto found = sizes_.find(ring);
  return found == sizes_.end() ? 0 : found->second;
}

std::map<int64_t, std::vector<int64_t>> ProcessGroups::rings() const {
  std::map<int64_t, std::vector<int64_t>> rings;
  for (const auto& [ranks, ring] : byRanks_) rings.emplace(ring, ranks);
  return rings;
}

}  // namespace reshardctl
