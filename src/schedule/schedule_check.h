// The check of a schedule (schedule.h), as NCCL would meet it at run time:
//   - every communicator's members issue the same sequence of collectives
//     (kind, element count, dtype, reduce type, root), and only its members;
//   - every send has the recv of its peer, in the same order on each pair of
//     ranks (NCCL matches point-to-point calls of a pair in issue order), of
//     the same count and dtype;
//   - the ranks, each blocked in its call until the call's partners reach
//     theirs (progress_simulation.h), all get to the end: where none can
//     advance, the wait cycle (or the finished rank waited for) is the hang.
// The first mismatch of each communicator is reported; a hang the mismatches
// already explain is not reported again. Calls inside control flow and on
// communicators whose ranks have no program given are listed, not checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "schedule/schedule.h"

namespace reshardctl {

enum class FindingKind : uint8_t {
  Mismatch,    // members' n-th calls differ
  Missing,     // a member issues fewer calls than another (a skipped or an extra one)
  NotMember,   // a rank issues a call on a communicator it is not in
  BadPeer,     // a peer index outside the communicator, or the rank itself
  Unmatched,   // a send without its recv, or a recv without its send
  Deadlock,    // no rank can advance: a wait cycle
};
std::string_view findingKindName(FindingKind kind);  // "mismatch", "missing", ...

inline constexpr size_t kNoCall = std::numeric_limits<size_t>::max();

// One rank's part in a finding.
struct FindingOp {
  size_t rank = 0;        // index into Schedule::ranks
  size_t call = kNoCall;  // index into that rank's calls; kNoCall: it has none there
  std::string text;       // what this rank does there, for the note
};

struct Finding {
  FindingKind kind = FindingKind::Mismatch;
  int64_t ring = 0;
  std::string message;
  std::vector<FindingOp> ops;  // ops[0] is where the error points; the others are its notes
};

// How far one rank got when the simulated run stopped.
struct WavefrontEntry {
  size_t completed = 0;       // calls it finished, of those checked
  size_t checked = 0;         // its calls that take part in the check
  size_t blockedAt = kNoCall;  // index into its calls of the call it waits in; kNoCall: it finished
};

struct ScheduleCheck {
  std::vector<Finding> findings;
  std::vector<WavefrontEntry> wavefront;  // one per rank, in Schedule::ranks order
  bool clean() const { return findings.empty(); }
};

// Linear in the calls (each call is matched once; a collective's completion
// touches each of its members once), plus O(log n) map lookups per call.
ScheduleCheck checkSchedule(const Schedule& schedule);

}  // namespace reshardctl
