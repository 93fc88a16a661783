// The NCCL backend of a build without CUDA/NCCL (CMake leaves src/exec/gpu/ out and
// compiles this file instead), so `run --backend nccl` can say why it cannot run.
#include "exec/execution_backend.h"

namespace reshardctl {

std::unique_ptr<ExecutionBackend> makeNcclBackend(const std::vector<int64_t>& /*ranks*/, std::string* error,
                                                  ProcessGroup* /*processes*/) {
  if (error != nullptr)
    *error = "reshardctl was built without CUDA/NCCL (rebuild where /usr/local/cuda has nccl.h)";
  return nullptr;
}

bool ncclBackendBuilt() { return false; }

}  // namespace reshardctl
