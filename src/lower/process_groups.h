// Paddle's process-group table (auto_parallel/static/process_group.py,
// new_process_group): a group is found by its exact rank list, in the order
// given ('_'.join(ranks)), or made with the next ring id. Ids depend on the
// order groups are first made, so every rank's lowering must make them in the
// same order (the reshard functions do: they make groups before choosing the
// rank's own).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace reshardctl {

class ProcessGroups {
 public:
  // The ring id of the group `ranks`, made now if new. new_process_group
  // gives `_new_ring_id() + len(_g_process_group_map) + 1`, the map holding
  // group 0 from the start; _new_ring_id() (distributed/collective.py) is
  // `len(_get_group_map()) + max(nrings, 9)` = 10 when only fleet's global
  // group exists, so the first group is ring 12.
  int64_t ringOf(const std::vector<int64_t>& ranks);
  // How many ranks ring `ring` holds (0: no such ring).
  size_t sizeOf(int64_t ring) const;
  size_t count() const { return byRanks_.size(); }
  // The members of every group asked for so far, made or found: what making
  // the groups costs (each ask compares or copies its list).
  size_t membersAsked() const { return membersAsked_; }
  // Every group made: ring id -> its ranks in the order given (a rank's
  // place there is its NCCL rank and the `peer` index that names it).
  std::map<int64_t, std::vector<int64_t>> rings() const;

 private:
  static constexpr int64_t kNewRingIdBase = 10;
  std::map<std::vector<int64_t>, int64_t> byRanks_;
  std::map<int64_t, size_t> sizes_;
  size_t membersAsked_ = 0;
};

}  // namespace reshardctl
