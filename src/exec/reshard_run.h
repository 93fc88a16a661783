// Proving one reshard on real data: a deterministic random global tensor, the
// source pieces every rank starts with, the plan run on a backend, and the
// check that every destination rank ends with exactly its piece. What
// `reshardctl run` does for each dist_op.reshard.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "exec/execution_backend.h"
#include "exec/multiprocess/shared_execution.h"
#include "exec/plan_footprint.h"
#include "reshard/plan.h"
#include "reshard/planner.h"

namespace reshardctl {

// A deliberate error, for testing that `run` notices broken plans: after step
// `step` (0-based) of the plan, one rank's piece lands at a wrong offset, or
// one rank drops out.
struct Fault {
  enum class Kind { WrongOffset, DropRank };
  size_t reshard = 0;  // 1-based, in report order
  size_t step = 0;
  Kind kind = Kind::WrongOffset;
};
// "RESHARD:STEP:offset|drop"; nullopt when malformed.
std::optional<Fault> parseFault(std::string_view text);

struct RunSettings {
  uint64_t seed = 1;
  int iterations = 1;  // > 1: the first is a warm-up, the time is the mean of the rest
  // `run --backend cpu` under mpirun: the ranks shared out over the processes
  // (exec/multiprocess/shared_execution.h); each makes and checks the pieces
  // of the ranks `ownerOf` gives it. The backend is not used then.
  ProcessGroup* group = nullptr;
  RankOwner ownerOf;
};

struct ReshardOutcome {
  bool passed = false;
  double maxError = 0;
  std::string problem;     // why it failed (empty when it passed)
  int64_t bytesMoved = 0;  // per run, as ExecutionStats counts it
  double busBytes = 0;     // per run: Σ nccl-tests' bus bytes of each step (cost_model.h busBytes)
  double seconds = 0;      // per run (mean over the timed iterations)
  double busBandwidthGBs() const { return seconds > 0 ? busBytes / seconds / 1e9 : 0; }
};

// Runs `plan` (made for `request`) on `backend`. `index` (0-based) makes each
// reshard's data differ under one seed. BackendError propagates: the backend
// cannot go on. Shared over processes (settings.group), a fault is not
// injected (run refuses --inject-fault there).
ReshardOutcome runReshard(const ReshardRequest& request, const Plan& plan, ExecutionBackend& backend,
                          const RunSettings& settings, size_t index, const Fault* fault);

// Why running `plan` `iterations` times is refused under `limits`, before
// anything is made: the plan's peak (plan_footprint.h) beside the global
// tensor and the source pieces each run starts from, and its work times the
// iterations. "" when within them, and for a tensor too large for the host
// (runReshard fails its row without making anything).
std::string runFootprintProblem(const ReshardRequest& request, const Plan& plan, int iterations,
                                const FootprintLimits& limits);

// nccl-tests' bus bytes of one step on its groups (reshard/cost_model.h busBytes).
double stepBusBytes(const Step& step);

// `request` with its largest dim multiplied by `factor`, and unknown (-1)
// dims given a size (a dump's dynamic dims have none to run with). Throws
// PlanError when the product overflows 64 bits.
ReshardRequest scaledRequest(const ReshardRequest& request, int64_t factor);

}  // namespace reshardctl
