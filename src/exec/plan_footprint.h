// What running a plan on the CPU executor takes, from the plan's layouts
// alone, before anything is allocated: the bytes the ranks' pieces hold at
// each step's peak and the elements the steps copy or reduce. `run` and
// `validate` weigh a reshard by it before running it: a step that replicates
// holds the whole tensor on every rank of its mesh (a 4^16 f32 tensor made
// replicated over 65,536 ranks is petabytes), which the program's own values
// do not show.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "reshard/plan.h"

namespace reshardctl {

struct PlanFootprint {
  // The most bytes the pieces hold at once: a step's pieces before it and
  // after it, on every rank of their meshes (the executor makes the new
  // pieces before it drops the old ones).
  uint64_t peakBytes = 0;
  size_t peakStep = 0;  // 1-based, the step holding peakBytes; 0: the source pieces alone
  // Elements read and written over every step and rank: a step reads its
  // input pieces (an all_reduce each of its group's, an all_gather the
  // gathered ones) and writes its output pieces; each rank counts at least 1.
  uint64_t work = 0;
};

// Every piece is sized as its rank's padded share (each split dim rounded
// up), held as doubles (exec/piece.h). Saturates rather than overflows. Work
// O(steps x (dims + mesh dims)): no rank is visited.
PlanFootprint planFootprint(const Plan& plan);

// The bytes every rank of `layout`'s mesh holds of a `shape` tensor together.
uint64_t layoutBytes(const std::vector<int64_t>& shape, const Layout& layout);

// What a caller allows, and how its message names each limit (a flag, e.g.
// "--max-memory=4294967296", or a fixed bound); 0 = no limit.
struct FootprintLimits {
  uint64_t maxBytes = 0;
  std::string_view bytesLimit;
  uint64_t maxWork = 0;
  std::string_view workLimit;
};

// Why a plan of `steps` steps with `footprint` is refused, with the figure
// and the limit ("its pieces hold 8.8e+12 bytes at step 3 of 19 ..., more
// than ..."); "" when it is within both. `bytes`/`work`: the figures to weigh
// (the footprint's, or with what else the caller holds and repeats).
std::string footprintProblem(const PlanFootprint& footprint, size_t steps, uint64_t bytes, uint64_t work,
                             const FootprintLimits& limits);

}  // namespace reshardctl
