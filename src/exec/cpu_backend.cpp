// The reference executor behind the ExecutionBackend interface. Its byte count
// comes from the same lowering the NCCL backend runs (step_program.h), so both
// backends report the same bytes for the same plan.
#include <chrono>

#include "exec/cpu_executor.h"
#include "exec/execution_backend.h"
#include "exec/step_program.h"

namespace reshardctl {

namespace {

class CpuBackend final : public ExecutionBackend {
 public:
  std::string_view name() const override { return "cpu"; }

  ExecutionStats execute(const Plan& plan, DistTensor& tensor) override {
    ExecutionStats stats;
    for (const Step& step : plan.steps) {
      stats.bytesMoved += countBytes(step, tensor);
      const auto start = std::chrono::steady_clock::now();
      executeStep(step, tensor);
      stats.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    tensor.layout = plan.dst;
    return stats;
  }

 private:
  static int64_t countBytes(const Step& step, const DistTensor& tensor) {
    std::map<int64_t, Box> boxes;
    for (const auto& [id, piece] : tensor.pieces) boxes[id] = piece.box;
    return stepCommunicationBytes(step, tensor.shape, tensor.dtype, boxes);
  }
};

}  // namespace

std::unique_ptr<ExecutionBackend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

}  // namespace reshardctl
