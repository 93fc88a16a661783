#include "schedule/progress_simulation.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

namespace reshardctl {

namespace {

class Simulation {
 public:
  Simulation(const Schedule& schedule, const std::vector<std::vector<bool>>& checked) : schedule_(schedule) {
    const size_t n = schedule.ranks.size();
    order_.resize(n);
    position_.assign(n, 0);
    counted_.assign(n, false);
    for (size_t r = 0; r < n; ++r)
      for (size_t i = 0; i < schedule.ranks[r].calls.size(); ++i)
        if (checked[r][i]) order_[r].push_back(i);
  }

  Progress run() {
    std::deque<size_t> work;
    for (size_t r = 0; r < order_.size(); ++r) work.push_back(r);
    while (!work.empty()) {
      const size_t r = work.front();
      work.pop_front();
      advance(r, work);
    }
    return result();
  }

 private:
  const CommCall* head(size_t r) const {
    return position_[r] < order_[r].size() ? &schedule_.ranks[r].calls[order_[r][position_[r]]] : nullptr;
  }
  size_t indexOf(int64_t rank) const { return schedule_.indexOfRank.at(rank); }
  const std::vector<int64_t>& members(int64_t ring) const { return schedule_.communicators.at(ring).ranks; }

  // A rank's head call is entered once; the collective completes when its
  // last member enters it, and each member moves on.
  void advance(size_t r, std::deque<size_t>& work) {
    const CommCall* call = head(r);
    if (call == nullptr) return;
    if (!isPointToPoint(call->kind)) {
      if (counted_[r]) return;
      counted_[r] = true;
      if (++arrived_[call->ring] < members(call->ring).size()) return;
      arrived_[call->ring] = 0;
      for (int64_t member : members(call->ring)) step(indexOf(member), work);
      return;
    }
    const size_t peer = indexOf(call->peer);
    const CommCall* other = head(peer);
    const CommKind wanted = call->kind == CommKind::Send ? CommKind::Recv : CommKind::Send;
    if (other && other->kind == wanted && other->ring == call->ring && other->peer == schedule_.ranks[r].rank) {
      step(r, work);
      step(peer, work);
    }
  }

  void step(size_t r, std::deque<size_t>& work) {
    ++position_[r];
    counted_[r] = false;
    work.push_back(r);
  }

  // Whom a blocked rank waits for: its peer, or the first member of its
  // communicator that is not in the same collective.
  size_t waitedFor(size_t r) const {
    const CommCall* call = head(r);
    if (isPointToPoint(call->kind)) return indexOf(call->peer);
    for (int64_t member : members(call->ring)) {
      const CommCall* other = head(indexOf(member));
      if (other == nullptr || isPointToPoint(other->kind) || other->ring != call->ring) return indexOf(member);
    }
    return kNoCall;
  }

  Progress result() const {
    Progress progress;
    for (size_t r = 0; r < order_.size(); ++r) {
      WavefrontEntry entry{position_[r], order_[r].size(), kNoCall};
      const bool blocked = head(r) != nullptr;
      if (blocked) entry.blockedAt = order_[r][position_[r]];
      progress.wavefront.push_back(entry);
      progress.waitsFor.push_back(blocked ? waitedFor(r) : kNoCall);
    }
    return progress;
  }

  const Schedule& schedule_;
  std::vector<std::vector<size_t>> order_;  // per rank, the indices of its checked calls
  std::vector<size_t> position_;            // per rank, how many of them completed
  std::vector<bool> counted_;               // per rank, whether its head collective counted as arrived
  std::unordered_map<int64_t, size_t> arrived_;  // per ring, members in its current collective
};

}  // namespace

bool Progress::finished() const {
  return std::all_of(wavefront.begin(), wavefront.end(), [](const WavefrontEntry& e) { return e.blockedAt == kNoCall; });
}

Progress simulateProgress(const Schedule& schedule, const std::vector<std::vector<bool>>& checked) {
  return Simulation(schedule, checked).run();
}

}  // namespace reshardctl
