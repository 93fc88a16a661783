// dist_op.reshard on the ranks' pieces, through the existing executor: the
// plan the planner makes for the reshard (cached per shape and layouts), run on
// an ExecutionBackend (the CPU reference or NCCL) with the values as doubles,
// so a reshard adds no rounding of its own.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <string>
#include <unordered_map>

#include "exec/execution_backend.h"
#include "exec/multiprocess/shared_execution.h"
#include "exec/plan_footprint.h"
#include "interp/tensor.h"
#include "ir/ir.h"
#include "reshard/cost_model.h"
#include "reshard/plan.h"

namespace reshardctl {

class ReshardRunner {
 public:
  ReshardRunner(ExecutionBackend& backend, const CostModel& costs) : backend_(backend), costs_(costs) {}

  // The pieces of a value of `shape` laid out as `src` (by process id), moved
  // to `dst`. Throws LayoutError, PlanError or ExecutionError when the reshard
  // cannot run on them; BackendError when the backend fails. `boolValues`:
  // the value is a bool tensor (every process says so alike), planned as bool.
  std::map<int64_t, Tensor> move(const Shape& shape, const TensorDistAttr& src, const TensorDistAttr& dst,
                                 const std::map<int64_t, const Tensor*>& pieces, bool boolValues = false);

  ExecutionBackend& backend() { return backend_; }

  // Plans (and keeps, for `move`) every dist_op.reshard of `program` at its
  // type's shape (-1 dims as `dynamicDim`) and weighs each plan's pieces, in
  // each of `processes` beside the `heldBytes` it holds anyway (the
  // program's values), and work against `limits` (exec/plan_footprint.h).
  // The first reshard past them and why; a reshard that cannot be planned is
  // left to fail where it runs. Nothing is allocated for the pieces.
  struct Refusal {
    const Operation* op = nullptr;
    std::string problem;
  };
  std::optional<Refusal> weigh(const Program& program, int64_t dynamicDim, uint64_t processes, uint64_t heldBytes,
                               const FootprintLimits& limits);

  // Under mpirun: this process holds (and `move` takes and gives) only the
  // pieces of the ranks `ownerOf` gives it; the plan runs shared over the
  // processes (exec/multiprocess/shared_execution.h), and a missing piece
  // found by any process is every process's error.
  void shareOver(ProcessGroup& group, RankOwner ownerOf) {
    group_ = &group;
    ownerOf_ = std::move(ownerOf);
  }
  uint64_t receivedBytes() const { return receivedBytes_; }  // from other processes

 private:
  // Planned for doubles (the interpreter's values), or for bool where the
  // pieces are: an ANY/ALL partial below another type can only be made of
  // pieces that are all 0/1 (transition.h), which only bool promises.
  const Plan& planFor(const Shape& shape, DType dtype, const TensorDistAttr& src, const TensorDistAttr& dst);
  bool holds(int64_t id) const;
  // Throws, on every process alike, the problem at the lowest mesh position
  // any process found (`mine`: this process's first, if any).
  void agree(std::optional<std::pair<int64_t, std::string>> mine);

  ExecutionBackend& backend_;
  const CostModel& costs_;
  std::unordered_map<std::string, Plan> plans_;
  ProcessGroup* group_ = nullptr;
  RankOwner ownerOf_;
  uint64_t receivedBytes_ = 0;
};

}  // namespace reshardctl
