// The ranks' progress under NCCL's blocking semantics: each rank waits in its
// next call until the call's partners are in theirs -- every member of the
// communicator in its collective, the peer in the matching recv (or send) --
// then all of them go on. Calls are matched by position (the sequence checks
// compare what they carry). Where no rank can advance before all finish,
// the run would hang: the result says where each rank waits and for whom.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "schedule/schedule.h"
#include "schedule/schedule_check.h"

namespace reshardctl {

struct Progress {
  std::vector<WavefrontEntry> wavefront;  // per rank
  // Per rank, the rank (index into Schedule::ranks) it waits for when
  // blocked: its peer, or the first member of its communicator not in the
  // same collective; kNoCall when it finished.
  std::vector<size_t> waitsFor;
  bool finished() const;
};

// `checked[r][i]`: whether call i of rank r takes part (not in control flow,
// its communicator complete and valid for it).
Progress simulateProgress(const Schedule& schedule, const std::vector<std::vector<bool>>& checked);

}  // namespace reshardctl
