// The schedule of a run: every rank's communication calls (comm_call.h) and
// the communicators they name, resolved to ranks. This is the seam the
// checks start from: it takes per-rank programs, whether Paddle printed them
// (one per rank's log) or a lowering of one dist program made them.
//
// A communicator is a ring id; its ranks come, in this order of trust, from
//   1. --groups FILE (the caller's `groups`),
//   2. the op_dist_attr mesh of its collectives (Paddle runs a collective on
//      the process group of the op's mesh: `new_process_group(sorted ids)`),
//   3. the ranks whose programs use the ring id.
// A peer is an index into the group's ranks in the group's order (send_v2's
// `peer` is `group.ranks.index(dst)`, and a rank's place there is its NCCL
// rank: ProcessGroup.local_rank, auto_parallel/static/process_group.py,
// which keeps the ranks as new_process_group was given them), so it is
// resolved only once the ranks are known. --groups and lowering's table give
// that order; a mesh's group is its sorted ids.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/diagnostics.h"
#include "ir/ir.h"
#include "ir/source.h"
#include "schedule/comm_call.h"

namespace reshardctl {

// One rank's program, as loaded: where its diagnostics go and its locations point.
struct RankInput {
  int64_t rank = 0;
  const Program* program = nullptr;
  const SourceFile* source = nullptr;
  std::string name;  // how messages name its input ("r0.ir", "train.log#2")
  DiagnosticEngine* diagnostics = nullptr;  // its source's engine: control-flow warnings, attribute errors
};

struct RankSchedule {
  int64_t rank = 0;
  const SourceFile* source = nullptr;
  std::string name;
  std::vector<CommCall> calls;
};

enum class MembersFrom : uint8_t { Groups, DistAttr, Usage };
std::string_view membersFromName(MembersFrom from);  // "groups", "op_dist_attr", "usage"

struct Communicator {
  int64_t ring = 0;
  std::vector<int64_t> ranks;  // sorted
  std::vector<int64_t> order;  // the same ranks in the group's order: what a peer index counts in
  MembersFrom from = MembersFrom::Usage;
  std::vector<int64_t> absent;  // its ranks with no program given: its calls cannot be checked
};

// ring id -> ranks in the group's order, as --groups or lowering gives them.
using GroupTable = std::map<int64_t, std::vector<int64_t>>;

struct Schedule {
  std::vector<RankSchedule> ranks;  // in the order given; ranks distinct
  std::map<int64_t, Communicator> communicators;
  // The index in `ranks` of a rank id, or -1.
  std::map<int64_t, size_t> indexOfRank;

  void add(RankSchedule rank);  // after the ranks added so far
  size_t callCount() const;
};

// Collects each rank's calls, resolves communicators and peers. Linear in
// the ops, plus O(log rings) per call.
Schedule buildSchedule(const std::vector<RankInput>& programs, const GroupTable& groups);
// buildSchedule's two halves: each rank's calls as its program issues them,
// then the communicators and peers those calls name (a test changes the
// calls in between).
Schedule collectSchedule(const std::vector<RankInput>& programs);
// One rank's calls: what collectSchedule does for each program.
RankSchedule collectRank(const RankInput& program);
void resolveSchedule(Schedule& schedule, const GroupTable& groups);

// "ring 3 [0,1]"
std::string communicatorName(const Communicator& communicator);

}  // namespace reshardctl
