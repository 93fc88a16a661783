#include <doctest/doctest.h>

#include "exec/reshard_run.h"
#include "reshard/cost_model.h"

namespace reshardctl {

namespace {
ReshardRequest partialToReplicated() {
  ProcessMesh mesh{{2, 2}, {0, 1, 2, 3}, true};
  TensorDistAttr src{mesh, {0, -1}, {{1, ReduceType::Sum}}, {}};
  TensorDistAttr dst{mesh, {-1, -1}, {}, {}};
  return ReshardRequest{{6, 5}, DType::F32, src, dst};
}
}  // namespace

TEST_CASE("faults are written RESHARD:STEP:KIND") {
  std::optional<Fault> fault = parseFault("3:1:drop");
  REQUIRE(fault);
  CHECK(fault->reshard == 3);
  CHECK(fault->step == 1);
  CHECK(fault->kind == Fault::Kind::DropRank);
  CHECK(parseFault("2:0:offset")->kind == Fault::Kind::WrongOffset);
  CHECK_FALSE(parseFault("0:0:drop"));  // reshards count from 1
  CHECK_FALSE(parseFault("1:x:drop"));
  CHECK_FALSE(parseFault("1:0:explode"));
  CHECK_FALSE(parseFault("1:0"));
}

TEST_CASE("scaling multiplies the largest dim and sizes dynamic dims") {
  ReshardRequest request = partialToReplicated();
  request.shape = {-1, 8, 3};
  CHECK(scaledRequest(request, 10).shape == std::vector<int64_t>{4, 80, 3});
  CHECK(scaledRequest(request, 1).shape == std::vector<int64_t>{4, 8, 3});
}

TEST_CASE("bus bytes are nccl-tests' (all_gather counts the gathered total, not the send buffer)") {
  Step step;
  step.groups = {{0, 1, 2, 3}};
  step.bytesPerRank = 1000;  // the send buffer of all_reduce, all_gather; the input of reduce_scatter
  step.kind = StepKind::AllReduce;
  CHECK(stepBusBytes(step) == doctest::Approx(1500));  // 1000 x 2(n-1)/n
  step.kind = StepKind::AllGather;
  CHECK(stepBusBytes(step) == doctest::Approx(3000));  // total 4000 x (n-1)/n
  step.kind = StepKind::ReduceScatter;
  CHECK(stepBusBytes(step) == doctest::Approx(750));   // 1000 x (n-1)/n
  step.kind = StepKind::SendRecv;
  CHECK(stepBusBytes(step) == doctest::Approx(1000));
  step.kind = StepKind::Slice;
  CHECK(stepBusBytes(step) == 0.0);
  step.kind = StepKind::AllGather;
  step.groups = {{0}};
  CHECK(stepBusBytes(step) == 0.0);  // a group of one moves nothing over a link
}

TEST_CASE("run's bus bytes are the cost model's: an all_gather row prices what it reports") {
  ProcessMesh mesh{{4}, {0, 1, 2, 3}, true};
  const ReshardRequest request{{64, 8}, DType::F32, TensorDistAttr{mesh, {0, -1}, {}, {}},
                               TensorDistAttr{mesh, {-1, -1}, {}, {}}};
  CostModel costs;
  costs.launchUs = 0;
  costs.link = {1.0, 0.0};  // 1 GB/s, no latency: the estimate is bus bytes / 1e3 us
  const Plan plan = planMinCost(request, costs);
  REQUIRE(plan.steps.size() == 1);
  REQUIRE(plan.steps[0].kind == StepKind::AllGather);
  CHECK(stepBusBytes(plan.steps[0]) == doctest::Approx(64 * 8 * 4 * 3 / 4.0));  // the 2 KiB result x 3/4
  CHECK(plan.steps[0].estUs == doctest::Approx(stepBusBytes(plan.steps[0]) / 1e3));
}

TEST_CASE("a plan run on the CPU backend passes; an injected fault fails it") {
  const ReshardRequest request = partialToReplicated();
  const Plan plan = planMinCost(request, CostModel{});
  REQUIRE_FALSE(plan.steps.empty());
  auto backend = makeCpuBackend();
  RunSettings settings;
  settings.seed = 42;
  settings.iterations = 2;
  ReshardOutcome good = runReshard(request, plan, *backend, settings, 0, nullptr);
  CHECK_MESSAGE(good.passed, good.problem);
  CHECK(good.bytesMoved > 0);
  CHECK(good.busBytes > 0);
  for (Fault::Kind kind : {Fault::Kind::DropRank, Fault::Kind::WrongOffset}) {
    Fault fault{1, 0, kind};
    ReshardOutcome bad = runReshard(request, plan, *backend, settings, 0, &fault);
    CHECK_FALSE(bad.passed);
    CHECK_FALSE(bad.problem.empty());
  }
}

TEST_CASE("a tensor too large for the host fails its row instead of exhausting memory") {
  ReshardRequest request = partialToReplicated();
  request.shape = {int64_t{1} << 20, int64_t{1} << 20};
  const Plan plan = planMinCost(request, CostModel{});
  auto backend = makeCpuBackend();
  ReshardOutcome outcome = runReshard(request, plan, *backend, RunSettings{}, 0, nullptr);
  CHECK_FALSE(outcome.passed);
  CHECK(outcome.problem.find("too many to hold on the host") != std::string::npos);
}

TEST_CASE("run weighs a plan with the global tensor and the source pieces beside it, and its work per iteration") {
  ProcessMesh mesh{{4}, {0, 1, 2, 3}, true};
  const ReshardRequest request{{1024, 1024}, DType::F32, TensorDistAttr{mesh, {0, -1}, {}, {}},
                               TensorDistAttr{mesh, {-1, -1}, {}, {}}};
  const Plan plan = planMinCost(request, CostModel{});  // one all_gather
  REQUIRE(plan.steps.size() == 1);
  // Global 8 MiB, source 8 MiB, the step's 8 MiB before and 32 MiB after it: 56 MiB.
  const uint64_t held = uint64_t{56} << 20;
  CHECK(runFootprintProblem(request, plan, 1, FootprintLimits{held, "B", 0, "W"}).empty());
  CHECK(runFootprintProblem(request, plan, 1, FootprintLimits{held - 1, "B", 0, "W"}).find("more than B") !=
        std::string::npos);
  // The all_gather reads and writes 4 x 1 Mi elements: 8 Mi a run, 3 runs 24 Mi.
  const uint64_t work = uint64_t{8} << 20;
  CHECK(runFootprintProblem(request, plan, 3, FootprintLimits{0, "B", 3 * work, "W"}).empty());
  CHECK(runFootprintProblem(request, plan, 3, FootprintLimits{0, "B", 3 * work - 1, "W"}).find("more than W") !=
        std::string::npos);
  // Too large for the host: its row fails without making anything, as before.
  ReshardRequest huge = partialToReplicated();
  huge.shape = {int64_t{1} << 20, int64_t{1} << 20};
  CHECK(runFootprintProblem(huge, planMinCost(huge, CostModel{}), 1, FootprintLimits{1, "B", 1, "W"}).empty());
}

}  // namespace reshardctl
