// dist_op.reshard on the ranks' pieces, through the existing executor: the
// plan the planner makes for the reshard (cached per shape and layouts), run on
// an ExecutionBackend (the CPU reference or NCCL) with the values as doubles,
// so a reshard adds no rounding of its own.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>

#include "exec/execution_backend.h"
#include "interp/tensor.h"
#include "reshard/cost_model.h"
#include "reshard/plan.h"

namespace reshardctl {

class ReshardRunner {
 public:
  ReshardRunner(ExecutionBackend& backend, const CostModel& costs) : backend_(backend), costs_(costs) {}

  // The pieces of a value of `shape` laid out as `src` (by process id), moved
  // to `dst`. Throws LayoutError, PlanError or ExecutionError when the reshard
  // cannot run on them; BackendError when the backend fails.
  std::map<int64_t, Tensor> move(const Shape& shape, const TensorDistAttr& src, const TensorDistAttr& dst,
                                 const std::map<int64_t, const Tensor*>& pieces);

  ExecutionBackend& backend() { return backend_; }

 private:
  const Plan& planFor(const Shape& shape, const TensorDistAttr& src, const TensorDistAttr& dst);

  ExecutionBackend& backend_;
  const CostModel& costs_;
  std::unordered_map<std::string, Plan> plans_;
};

}  // namespace reshardctl
