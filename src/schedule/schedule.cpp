#include "schedule/schedule.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace reshardctl {

namespace {

std::vector<int64_t> sortedUnique(std::vector<int64_t> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

// A group's ranks in its order, each once (a repeat names no new rank).
std::vector<int64_t> firstOccurrences(const std::vector<int64_t>& ranks) {
  std::vector<int64_t> order;
  std::set<int64_t> seen;
  for (int64_t rank : ranks)
    if (seen.insert(rank).second) order.push_back(rank);
  return order;
}

// The ranks of every ring: --groups, else its collectives' meshes (the first
// that names ids), else the ranks that use it.
std::map<int64_t, Communicator> resolveCommunicators(const std::vector<RankSchedule>& ranks,
                                                     const GroupTable& groups) {
  std::map<int64_t, Communicator> communicators;
  std::map<int64_t, std::set<int64_t>> users;
  for (const RankSchedule& rank : ranks)
    for (const CommCall& call : rank.calls) {
      users[call.ring].insert(rank.rank);
      Communicator& c = communicators[call.ring];
      c.ring = call.ring;
      if (c.from == MembersFrom::Usage && !isPointToPoint(call.kind) && !call.meshRanks.empty()) {
        c.ranks = sortedUnique(call.meshRanks);
        c.from = MembersFrom::DistAttr;
      }
    }
  for (auto& [ring, c] : communicators) {
    if (auto group = groups.find(ring); group != groups.end()) {
      c.order = firstOccurrences(group->second);
      c.ranks = sortedUnique(c.order);
      c.from = MembersFrom::Groups;
      continue;
    }
    if (c.from == MembersFrom::Usage) c.ranks.assign(users[ring].begin(), users[ring].end());
    c.order = c.ranks;
  }
  return communicators;
}

void markAbsentRanks(Schedule& schedule) {
  for (auto& [ring, c] : schedule.communicators)
    for (int64_t rank : c.ranks)
      if (!schedule.indexOfRank.count(rank)) c.absent.push_back(rank);
}

void resolvePeers(Schedule& schedule) {
  for (RankSchedule& rank : schedule.ranks)
    for (CommCall& call : rank.calls) {
      if (!isPointToPoint(call.kind)) continue;
      const std::vector<int64_t>& members = schedule.communicators.at(call.ring).order;
      // An index past the ranks, or naming the rank itself, stays unresolved (-1): a finding.
      if (call.peerIndex >= 0 && static_cast<size_t>(call.peerIndex) < members.size() &&
          members[static_cast<size_t>(call.peerIndex)] != rank.rank)
        call.peer = members[static_cast<size_t>(call.peerIndex)];
    }
}

}  // namespace

std::string_view membersFromName(MembersFrom from) {
  switch (from) {
    case MembersFrom::Groups: return "groups";
    case MembersFrom::DistAttr: return "op_dist_attr";
    case MembersFrom::Usage: return "usage";
  }
  return "?";
}

size_t Schedule::callCount() const {
  size_t count = 0;
  for (const RankSchedule& rank : ranks) count += rank.calls.size();
  return count;
}

void Schedule::add(RankSchedule rank) {
  indexOfRank.emplace(rank.rank, ranks.size());
  ranks.push_back(std::move(rank));
}

RankSchedule collectRank(const RankInput& program) {
  RankSchedule rank{program.rank, program.source, program.name, {}};
  DiagnosticEngine fallback(program.source);
  rank.calls = collectCommCalls(*program.program, program.diagnostics ? *program.diagnostics : fallback);
  return rank;
}

Schedule collectSchedule(const std::vector<RankInput>& programs) {
  Schedule schedule;
  for (const RankInput& program : programs) schedule.add(collectRank(program));
  return schedule;
}

void resolveSchedule(Schedule& schedule, const GroupTable& groups) {
  schedule.communicators = resolveCommunicators(schedule.ranks, groups);
  markAbsentRanks(schedule);
  resolvePeers(schedule);
}

Schedule buildSchedule(const std::vector<RankInput>& programs, const GroupTable& groups) {
  Schedule schedule = collectSchedule(programs);
  resolveSchedule(schedule, groups);
  return schedule;
}

std::string communicatorName(const Communicator& communicator) {
  return fmt::format("ring {} [{}]", communicator.ring, fmt::join(communicator.order, ","));
}

}  // namespace reshardctl
