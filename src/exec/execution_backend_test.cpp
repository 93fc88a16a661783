#include <doctest/doctest.h>

#include <cstdlib>
#include <random>

#include "exec/execution_backend.h"
#include "exec/reference_data.h"
#include "reshard/planner.h"

using namespace reshardctl;

TEST_CASE("cpu backend: runs a plan like executePlan and counts the bytes sent") {
  ProcessMesh mesh{{2}, {0, 1}, true};
  TensorDistAttr src{mesh, {0, -1}, {}, {}};
  TensorDistAttr dst{mesh, {-1, -1}, {}, {}};
  const Plan plan = planMinCost(ReshardRequest{{4, 3}, DType::F32, src, dst}, CostModel{});
  std::mt19937_64 rng(3);
  const GlobalTensor global = randomGlobalTensor({4, 3}, DType::F32, false, rng);
  DistTensor tensor = makeSourcePieces(global, plan.src, rng);
  const auto backend = makeCpuBackend();
  CHECK(backend->name() == "cpu");
  const ExecutionStats stats = backend->execute(plan, tensor);
  CHECK(checkDestinationPieces(tensor, global).ok());
  CHECK(stats.bytesMoved == 2 * 6 * 4);  // one all_gather: each rank sends 6 floats
  CHECK(stats.seconds >= 0);
}

TEST_CASE("nccl backend: without a usable GPU it is refused with a reason") {
  unsetenv("RESHARDCTL_ALLOW_SHARED_GPU");
  std::string error;
  if (!ncclBackendBuilt()) {
    CHECK(makeNcclBackend({0}, &error) == nullptr);
    CHECK(error.find("built without CUDA/NCCL") != std::string::npos);
    return;
  }
  // Built with NCCL: on a machine without a GPU the reason names the GPU; with a
  // GPU, asking for far more ranks than GPUs must still be refused.
  auto one = makeNcclBackend({0}, &error);
  if (one == nullptr) {
    CHECK(error.find("GPU") != std::string::npos);
  } else {
    CHECK(one->name() == "nccl");
  }
  std::vector<int64_t> many(1024);
  for (size_t i = 0; i < many.size(); ++i) many[i] = static_cast<int64_t>(i);
  error.clear();
  CHECK(makeNcclBackend(many, &error) == nullptr);
  CHECK(error.find("GPU") != std::string::npos);
}
