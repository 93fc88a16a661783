#include "schedule/schedule_check.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "schedule/progress_simulation.h"
#include "support/text.h"

namespace reshardctl {

namespace {

// What two calls that should match differ in, for the message.
std::string differenceText(const CommCall& a, const CommCall& b) {
  if (a.kind != b.kind) return fmt::format("{} against {}", commKindName(a.kind), commKindName(b.kind));
  if (a.reduce != b.reduce)
    return fmt::format("reduce type {} against {}", a.reduce ? reduceTypeName(*a.reduce) : "none",
                       b.reduce ? reduceTypeName(*b.reduce) : "none");
  if (a.root != b.root) return fmt::format("root {} against {}", a.root, b.root);
  if (a.count != b.count) return fmt::format("element count {} against {}", a.count, b.count);
  return fmt::format("dtype {} against {}", a.dtype, b.dtype);
}

bool sameMessage(const CommCall& a, const CommCall& b) {
  return (a.count < 0 || b.count < 0 || a.count == b.count) && (a.dtype.empty() || b.dtype.empty() || a.dtype == b.dtype);
}

class Checker {
 public:
  explicit Checker(const Schedule& schedule) : s_(schedule) {}

  ScheduleCheck run() {
    markChecked();
    checkCollectives();
    checkPointToPoint();
    checkProgress();
    return std::move(result_);
  }

 private:
  const CommCall& call(size_t r, size_t i) const { return s_.ranks[r].calls[i]; }
  int64_t rankId(size_t r) const { return s_.ranks[r].rank; }
  const Communicator& communicator(int64_t ring) const { return s_.communicators.at(ring); }
  std::string ringName(int64_t ring) const { return communicatorName(communicator(ring)); }

  // At most one finding per communicator: its first mismatch.
  bool report(FindingKind kind, int64_t ring, std::string message, std::vector<FindingOp> ops) {
    if (!reported_.insert(ring).second) return false;
    result_.findings.push_back(Finding{kind, ring, std::move(message), std::move(ops)});
    return true;
  }

  void markChecked() {
    checked_.resize(s_.ranks.size());
    for (size_t r = 0; r < s_.ranks.size(); ++r) {
      checked_[r].assign(s_.ranks[r].calls.size(), false);
      for (size_t i = 0; i < s_.ranks[r].calls.size(); ++i) checked_[r][i] = takesPart(r, i);
    }
  }

  bool takesPart(size_t r, size_t i) {
    const CommCall& c = call(r, i);
    const Communicator& comm = communicator(c.ring);
    if (c.inControlFlow || !comm.absent.empty()) return false;
    if (!std::binary_search(comm.ranks.begin(), comm.ranks.end(), rankId(r))) {
      report(FindingKind::NotMember, c.ring,
             fmt::format("rank {} issues {} on {}, which it is not a member of", rankId(r), c.op, ringName(c.ring)),
             {{r, i, "here"}});
      return false;
    }
    if (isPointToPoint(c.kind) && comm.from == MembersFrom::Usage && comm.ranks.size() == 1) {
      report(FindingKind::Unmatched, c.ring,
             fmt::format("rank {}'s {} is the only call on ring {}: its peer issues no {} there (--groups names "
                         "the ring's ranks)",
                         rankId(r), c.op, c.ring, c.kind == CommKind::Send ? "recv" : "send"),
             {{r, i, "here"}});
      return false;
    }
    if (isPointToPoint(c.kind) && c.peer < 0) {
      report(FindingKind::BadPeer, c.ring,
             fmt::format("rank {}'s {} names peer {} on {}: {}", rankId(r), c.op, c.peerIndex, ringName(c.ring),
                         c.peerIndex >= 0 && static_cast<size_t>(c.peerIndex) < comm.ranks.size()
                             ? "that is the rank itself"
                             : "there is no such index in its ranks"),
             {{r, i, "here"}});
      return false;
    }
    return true;
  }

  void checkCollectives() {
    // ring -> per member (in sorted rank order) the indices of its collectives there
    std::map<int64_t, std::vector<std::vector<size_t>>> sequences;
    for (size_t r = 0; r < s_.ranks.size(); ++r)
      for (size_t i = 0; i < s_.ranks[r].calls.size(); ++i) {
        const CommCall& c = call(r, i);
        if (!checked_[r][i] || isPointToPoint(c.kind)) continue;
        const std::vector<int64_t>& members = communicator(c.ring).ranks;
        auto& perMember = sequences[c.ring];
        perMember.resize(members.size());
        perMember[std::lower_bound(members.begin(), members.end(), rankId(r)) - members.begin()].push_back(i);
      }
    for (auto& [ring, perMember] : sequences) compareSequences(ring, perMember);
  }

  void compareSequences(int64_t ring, const std::vector<std::vector<size_t>>& perMember) {
    const std::vector<int64_t>& members = communicator(ring).ranks;
    size_t shortest = perMember[0].size();
    for (const auto& sequence : perMember) shortest = std::min(shortest, sequence.size());
    const size_t first = s_.indexOfRank.at(members[0]);
    for (size_t k = 0; k < shortest; ++k) {
      const CommCall& reference = call(first, perMember[0][k]);
      for (size_t m = 1; m < members.size(); ++m) {
        const size_t r = s_.indexOfRank.at(members[m]);
        const CommCall& other = call(r, perMember[m][k]);
        if (sameCollective(reference, other)) continue;
        report(FindingKind::Mismatch, ring,
               fmt::format("{}: collective #{} differs: rank {} issues {}, rank {} issues {} ({})", ringName(ring), k + 1,
                           members[m], callSignature(other), members[0], callSignature(reference),
                           differenceText(other, reference)),
               {{r, perMember[m][k], fmt::format("rank {}: {}", members[m], callSignature(other))},
                {first, perMember[0][k], fmt::format("rank {}: {}", members[0], callSignature(reference))}});
        return;
      }
    }
    for (size_t m = 0; m < members.size(); ++m) {
      if (perMember[m].size() == shortest) continue;
      const size_t r = s_.indexOfRank.at(members[m]);
      std::vector<FindingOp> ops{{r, perMember[m][shortest], fmt::format("rank {}: {}", members[m], callSignature(call(r, perMember[m][shortest])))}};
      std::vector<int64_t> behind;
      for (size_t o = 0; o < members.size(); ++o) {
        if (perMember[o].size() != shortest) continue;
        behind.push_back(members[o]);
        const size_t ro = s_.indexOfRank.at(members[o]);
        ops.push_back({ro, perMember[o].empty() ? kNoCall : perMember[o].back(),
                       perMember[o].empty()
                           ? fmt::format("rank {} issues no collective on this communicator", members[o])
                           : fmt::format("rank {}'s last collective on this communicator (it issues {})", members[o],
                                         shortest)});
      }
      report(FindingKind::Missing, ring,
             fmt::format("{}: rank {}'s collective #{} ({}) has no partner on rank {} (it issues {} there): a skipped "
                         "collective, or an extra one",
                         ringName(ring), members[m], shortest + 1, callSignature(call(r, perMember[m][shortest])),
                         fmt::join(behind, ", "), shortest),
             std::move(ops));
      return;
    }
  }

  struct Channel {
    std::vector<size_t> sends, recvs;  // call indices on the sender, on the receiver
  };

  void checkPointToPoint() {
    std::map<std::tuple<int64_t, size_t, size_t>, Channel> channels;  // (ring, sender, receiver)
    for (size_t r = 0; r < s_.ranks.size(); ++r)
      for (size_t i = 0; i < s_.ranks[r].calls.size(); ++i) {
        const CommCall& c = call(r, i);
        if (!checked_[r][i] || !isPointToPoint(c.kind)) continue;
        const size_t peer = peerIndex(c);
        if (peer == kNoCall) continue;
        if (c.kind == CommKind::Send) channels[{c.ring, r, peer}].sends.push_back(i);
        else channels[{c.ring, peer, r}].recvs.push_back(i);
      }
    for (const auto& [key, channel] : channels) compareChannel(std::get<0>(key), std::get<1>(key), std::get<2>(key), channel);
  }

  size_t peerIndex(const CommCall& c) {
    auto it = s_.indexOfRank.find(c.peer);
    return it == s_.indexOfRank.end() ? kNoCall : it->second;
  }

  void compareChannel(int64_t ring, size_t from, size_t to, const Channel& channel) {
    const size_t both = std::min(channel.sends.size(), channel.recvs.size());
    for (size_t k = 0; k < both; ++k) {
      const CommCall& send = call(from, channel.sends[k]);
      const CommCall& recv = call(to, channel.recvs[k]);
      if (sameMessage(send, recv)) continue;
      report(FindingKind::Mismatch, ring,
             fmt::format("{}: message #{} from rank {} to rank {} differs: sent {}, received {} ({})", ringName(ring),
                         k + 1, rankId(from), rankId(to), callSignature(send), callSignature(recv),
                         differenceText(send, recv)),
             {{to, channel.recvs[k], fmt::format("rank {}: {}", rankId(to), callSignature(recv))},
              {from, channel.sends[k], fmt::format("rank {}: {}", rankId(from), callSignature(send))}});
      return;
    }
    if (channel.sends.size() == channel.recvs.size()) return;
    const bool extraSend = channel.sends.size() > both;
    const size_t r = extraSend ? from : to, other = extraSend ? to : from;
    const size_t i = extraSend ? channel.sends[both] : channel.recvs[both];
    report(FindingKind::Unmatched, ring,
           fmt::format("{}: rank {}'s {} #{} {} rank {} ({}) has no matching {} on rank {}", ringName(ring), rankId(r),
                       extraSend ? "send" : "recv", both + 1, extraSend ? "to" : "from", rankId(other),
                       callSignature(call(r, i)), extraSend ? "recv" : "send", rankId(other)),
           {{r, i, "here"}});
  }

  // What a blocked rank waits in, for messages: "send to rank 1 on ring 2 [0,1]".
  std::string waitText(size_t r, size_t i) const {
    const CommCall& c = call(r, i);
    if (c.kind == CommKind::Send) return fmt::format("send to rank {} on {}", c.peer, ringName(c.ring));
    if (c.kind == CommKind::Recv) return fmt::format("recv from rank {} on {}", c.peer, ringName(c.ring));
    return fmt::format("{} on {}", commKindName(c.kind), ringName(c.ring));
  }

  void checkProgress() {
    Progress progress = simulateProgress(s_, checked_);
    result_.wavefront = progress.wavefront;
    if (progress.finished()) return;
    // A hang the mismatches explain (a rank blocked on a communicator already
    // reported) is theirs; another one starts the wait chain.
    size_t start = kNoCall;
    for (size_t r = 0; r < s_.ranks.size() && start == kNoCall; ++r) {
      const size_t at = progress.wavefront[r].blockedAt;
      if (at != kNoCall && !reported_.count(call(r, at).ring)) start = r;
    }
    if (start == kNoCall) return;
    reportWaitChain(start, progress);
  }

  void reportWaitChain(size_t start, const Progress& progress) {
    std::vector<size_t> chain;
    std::vector<bool> seen(s_.ranks.size(), false);
    size_t r = start;
    while (r != kNoCall && !seen[r] && progress.wavefront[r].blockedAt != kNoCall) {
      seen[r] = true;
      chain.push_back(r);
      r = progress.waitsFor[r];
    }
    std::vector<FindingOp> ops;
    std::vector<std::string> steps;
    for (size_t k = 0; k < chain.size(); ++k) {
      const size_t at = progress.wavefront[chain[k]].blockedAt;
      const size_t next = progress.waitsFor[chain[k]];
      steps.push_back(fmt::format("rank {} waits in {} for rank {}", rankId(chain[k]), waitText(chain[k], at), rankId(next)));
      ops.push_back({chain[k], at, fmt::format("rank {} waits here for rank {}", rankId(chain[k]), rankId(next))});
    }
    const bool cycle = r != kNoCall && seen[r];
    const std::string end = cycle ? ": a wait cycle" : ", which has finished its calls";
    const int64_t ring = call(start, progress.wavefront[start].blockedAt).ring;
    report(FindingKind::Deadlock, ring, fmt::format("deadlock: no rank can advance: {}{}", fmt::join(steps, "; "), end),
           std::move(ops));
  }

  const Schedule& s_;
  ScheduleCheck result_;
  std::set<int64_t> reported_;
  std::vector<std::vector<bool>> checked_;
};

}  // namespace

std::string_view findingKindName(FindingKind kind) {
  switch (kind) {
    case FindingKind::Mismatch: return "mismatch";
    case FindingKind::Missing: return "missing";
    case FindingKind::NotMember: return "not-member";
    case FindingKind::BadPeer: return "bad-peer";
    case FindingKind::Unmatched: return "unmatched";
    case FindingKind::Deadlock: return "deadlock";
  }
  return "?";
}

ScheduleCheck checkSchedule(const Schedule& schedule) { return Checker(schedule).run(); }

}  // namespace reshardctl
