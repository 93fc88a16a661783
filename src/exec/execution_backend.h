// Where a reshard plan runs: the CPU reference executor, or GPUs through NCCL.
// `run` builds a tensor's source pieces on the host, hands them to a backend and
// checks the host pieces it gets back, so every backend is held to the same
// reference semantics (cpu_executor.h).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "exec/piece.h"
#include "reshard/plan.h"

namespace reshardctl {

// Raised by a backend for failures that are not the plan's fault: a CUDA or NCCL
// error, a timeout, an element type the backend cannot hold.
class BackendError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ExecutionStats {
  double seconds = 0;      // time of the plan's steps only, no host<->device copies
  int64_t bytesMoved = 0;  // bytes all ranks handed to the communication primitives (step_program.h)
  int64_t ncclCalls = 0;   // GPU backends: NCCL calls issued (proof that collectives really ran)
  int64_t kernels = 0;     // GPU backends: kernels launched for local steps
};

class ExecutionBackend {
 public:
  virtual ~ExecutionBackend() = default;
  virtual std::string_view name() const = 0;
  // The name with what it runs on, for `run`'s last lines ("nccl (NCCL 2.28.9, PATH)").
  virtual std::string description() const { return std::string(name()); }
  // Runs `plan` on `tensor` (host pieces in, host pieces out, as executePlan
  // does). Throws ExecutionError (cpu_executor.h) or BackendError on failure.
  virtual ExecutionStats execute(const Plan& plan, DistTensor& tensor) = 0;
};

// The reference executor, timed with steady_clock.
std::unique_ptr<ExecutionBackend> makeCpuBackend();

class ProcessGroup;  // process_group.h

// nullptr and a message in *error when unavailable (not built with NCCL, no GPU,
// fewer GPUs than ranks, NCCL init failed). `ranks` = every process id the plans
// will use; each gets its own GPU (see src/exec/gpu/nccl_backend.cpp). With
// `processes` (a run under mpirun, one process per rank; its size must be the
// number of ranks) this process drives only the rank of its world rank, and
// every process must make the same calls.
std::unique_ptr<ExecutionBackend> makeNcclBackend(const std::vector<int64_t>& ranks, std::string* error,
                                                  ProcessGroup* processes = nullptr);

// Whether this binary holds the NCCL backend at all.
bool ncclBackendBuilt();

}  // namespace reshardctl
