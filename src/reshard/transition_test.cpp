#include "reshard/transition.h"

#include <doctest/doctest.h>

#include <random>

#include "exec/cpu_executor.h"
#include "exec/reference_data.h"
#include "reshard/plan_alternatives.h"
#include "reshard/planner.h"
#include "reshard/reduce_on_arrival.h"

using namespace reshardctl;

namespace {

const ProcessMesh kMesh2x2{{2, 2}, {0, 1, 2, 3}, true};
const TensorSpec kTensor{{1024, 1024}, DType::F32};
const CostModel kCosts;
constexpr int64_t kBytes = 1024 * 1024 * 4;

Placement S(int64_t dim) { return Placement::shard(dim); }
Placement P(ReduceType type = ReduceType::Sum) { return Placement::partial(type); }
Placement R() { return Placement::replicate(); }

const ProcessMesh kStage0{{2}, {0, 1}, true};
const ProcessMesh kStage1{{2}, {2, 3}, true};

Layout layoutOf(const ProcessMesh& mesh, Placements placements) { return Layout{mesh, std::move(placements)}; }

TensorDistAttr attrOn(const ProcessMesh& mesh, std::vector<int64_t> dims, std::vector<PartialDim> partials = {}) {
  return TensorDistAttr{mesh, std::move(dims), std::move(partials), {}};
}

// The plan moves the data: every destination piece is the reduced value's box.
void checkExecutes(const Plan& plan) {
  std::mt19937_64 rng(3);
  const GlobalTensor global = randomGlobalTensor(plan.shape, plan.dtype, false, rng);
  DistTensor tensor = makeSourcePieces(global, plan.src, rng);
  executePlan(plan, tensor);
  const PieceCheck check = checkDestinationPieces(tensor, global);
  CHECK_MESSAGE(check.ok(), check.problem);
}

}  // namespace

TEST_CASE("flattened collectives: every member's block to every member, or each member's block of the reduction") {
  SUBCASE("[S(0),S(1)] -> [R,R]: one all_gather over the 4 ranks, sending each rank's quarter") {
    const auto edge = flattenedCollective({kMesh2x2, {S(0), S(1)}}, {0, 1}, {R(), R()}, kTensor, kCosts);
    REQUIRE(edge);
    REQUIRE(edge->step);
    CHECK(edge->step->kind == StepKind::AllGather);
    CHECK(edge->step->meshDims == std::vector<int64_t>{0, 1});
    CHECK(edge->step->groups == std::vector<std::vector<int64_t>>{{0, 1, 2, 3}});
    CHECK(edge->step->bytesPerRank == kBytes / 4);
    // The ring's 3 hops and bus bytes (k-1) * buffer, as two all_gathers in turn move in total.
    CHECK(edge->cost == doctest::Approx(kCosts.launchUs + 3 * 0.6 + 3.0 * kBytes / 4 / 370e3));
  }
  SUBCASE("[P,P] -> [S(0),S(1)]: one reduce_scatter whose input is one block per member") {
    const auto edge = flattenedCollective({kMesh2x2, {P(), P()}}, {0, 1}, {S(0), S(1)}, kTensor, kCosts);
    REQUIRE(edge);
    REQUIRE(edge->step);
    CHECK(edge->step->kind == StepKind::ReduceScatter);
    CHECK(edge->step->reduce == ReduceType::Sum);
    CHECK(edge->step->bytesPerRank == kBytes);
    CHECK(edge->to.placements == Placements{S(0), S(1)});
  }
  SUBCASE("mixed kinds, mixed or AVG reductions and one tensor dim split twice make none") {
    CHECK_FALSE(flattenedCollective({kMesh2x2, {P(), S(1)}}, {0, 1}, {R(), R()}, kTensor, kCosts));
    CHECK_FALSE(flattenedCollective({kMesh2x2, {P(), P(ReduceType::Max)}}, {0, 1}, {R(), R()}, kTensor, kCosts));
    CHECK_FALSE(flattenedCollective({kMesh2x2, {P(ReduceType::Avg), P(ReduceType::Avg)}}, {0, 1}, {R(), R()}, kTensor,
                                    kCosts));
    CHECK_FALSE(flattenedCollective({kMesh2x2, {P(), P()}}, {0, 1}, {S(0), S(0)}, kTensor, kCosts));
  }
}

TEST_CASE("permutations: only the pieces that change holder move, in one step") {
  SUBCASE("[S(0),S(1)] -> [S(1),S(0)] on 2x2: ranks 0 and 3 keep theirs, 1 and 2 swap a quarter") {
    const auto edge = permutation({kMesh2x2, {S(0), S(1)}}, {S(1), S(0)}, kTensor, kCosts);
    REQUIRE(edge);
    REQUIRE(edge->step);
    CHECK(edge->step->kind == StepKind::SendRecv);
    CHECK(edge->step->groups == std::vector<std::vector<int64_t>>{{0, 0}, {2, 1}, {1, 2}, {3, 3}});
    CHECK(edge->step->bytesPerRank == kBytes / 4);
    // On the mesh's own links (one peer each), not the link between meshes.
    CHECK(edge->cost == doctest::Approx(kCosts.launchUs + 0.6 + kBytes / 4.0 / 370e3));
  }
  SUBCASE("partials, equal placements and meshes past kPermutationRanks take no permutation") {
    CHECK_FALSE(permutation({kMesh2x2, {P(), S(1)}}, {S(1), S(0)}, kTensor, kCosts));
    CHECK_FALSE(permutation({kMesh2x2, {S(0), S(1)}}, {S(0), S(1)}, kTensor, kCosts));
    const ProcessMesh large{{128}, {}, false};
    CHECK_FALSE(permutation({large, {S(0)}}, {S(1)}, kTensor, kCosts));
  }
  SUBCASE("placementChange takes the cheaper of the collective and the permutation; a tie keeps the collective") {
    const auto swap = placementChange({kMesh2x2, {S(0), S(1)}}, {S(1), S(0)}, kTensor, kCosts);
    REQUIRE(swap);
    CHECK(swap->step->kind == StepKind::SendRecv);
    const auto gather = placementChange({kMesh2x2, {S(0), S(1)}}, {R(), R()}, kTensor, kCosts);
    REQUIRE(gather);
    CHECK(gather->step->kind == StepKind::AllGather);  // 3 peers each: what the ring costs
  }
}

TEST_CASE("a step priced again under another model costs what its edge would there") {
  CostModel slow;
  slow.setMeshDimLinks({100, 10}, {1.0});
  const auto swap = permutation({kMesh2x2, {S(0), S(1)}}, {S(1), S(0)}, kTensor, kCosts);
  const auto again = permutation({kMesh2x2, {S(0), S(1)}}, {S(1), S(0)}, kTensor, slow);
  REQUIRE(swap);
  REQUIRE(again);
  CHECK(stepCostUs(*swap->step, slow) == doctest::Approx(again->cost));  // the pair 1<->2 crosses both dims: 10 GB/s
  const auto gather = flattenedCollective({kMesh2x2, {S(0), S(1)}}, {0, 1}, {R(), R()}, kTensor, kCosts);
  REQUIRE(gather);
  CHECK(stepCostUs(*gather->step, slow) ==
        doctest::Approx(flattenedCollective({kMesh2x2, {S(0), S(1)}}, {0, 1}, {R(), R()}, kTensor, slow)->cost));
}

TEST_CASE("scale: P(SUM) <-> P(AVG) is local where scaling by the group size is exact") {
  const ProcessMesh mesh4{{4}, {0, 1, 2, 3}, true};
  SUBCASE("SUM -> AVG multiplies every piece by n, AVG -> SUM divides by it; priced as a local step") {
    const auto toAvg = meshDimTransition({mesh4, {P()}}, 0, P(ReduceType::Avg), kTensor, kCosts);
    REQUIRE(toAvg);
    REQUIRE(toAvg->step);
    CHECK(toAvg->step->kind == StepKind::Scale);
    CHECK(toAvg->step->reduce == ReduceType::Avg);
    CHECK(toAvg->step->scale == 4.0);
    CHECK(toAvg->step->bytesPerRank == kBytes);
    CHECK(toAvg->cost == doctest::Approx(kCosts.localUs(kBytes)));
    CHECK(isLocalStep(StepKind::Scale));
    const auto toSum = meshDimTransition({mesh4, {P(ReduceType::Avg)}}, 0, P(), kTensor, kCosts);
    REQUIRE(toSum);
    REQUIRE(toSum->step);
    CHECK(toSum->step->kind == StepKind::Scale);
    CHECK(toSum->step->scale == 0.25);
  }
  SUBCASE("not where it would round: 3 ranks, integers, or another reduce type") {
    const ProcessMesh mesh3{{3}, {0, 1, 2}, true};
    CHECK_FALSE(meshDimTransition({mesh3, {P()}}, 0, P(ReduceType::Avg), kTensor, kCosts));
    const TensorSpec ints{{1024, 1024}, DType::I32};
    CHECK_FALSE(meshDimTransition({mesh4, {P()}}, 0, P(ReduceType::Avg), ints, kCosts));
    CHECK_FALSE(meshDimTransition({mesh4, {P(ReduceType::Max)}}, 0, P(ReduceType::Avg), kTensor, kCosts));
  }
  SUBCASE("not above another partial mesh dim, which AVG does not commute with") {
    CHECK_FALSE(meshDimTransition({kMesh2x2, {P(), P()}}, 1, P(ReduceType::Avg), kTensor, kCosts));
    const auto upper = meshDimTransition({kMesh2x2, {S(0), P()}}, 1, P(ReduceType::Avg), kTensor, kCosts);
    REQUIRE(upper);
    REQUIRE(upper->step);
    CHECK(upper->step->kind == StepKind::Scale);
    CHECK(upper->step->groups == std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}});
  }
}


TEST_CASE("reduce on arrival: each destination gets, crosswise, its part of every partial piece") {
  const TensorSpec tensor{{2048, 1024}, DType::BF16};
  const auto edge = reduceOnArrival(layoutOf(kStage0, {Placement::partial(ReduceType::Sum)}),
                                    layoutOf(kStage1, {Placement::shard(0)}), tensor, CostModel{});
  REQUIRE(edge);
  REQUIRE(edge->step);
  CHECK(edge->step->kind == StepKind::SendRecv);
  CHECK(edge->step->reduce == ReduceType::Sum);
  CHECK(edge->step->groups == std::vector<std::vector<int64_t>>{{0, 2}, {1, 2}, {0, 3}, {1, 3}});
  CHECK(edge->step->bytesPerRank == 2 * 1024 * 1024 * 2);  // two halves of 1024x1024 bf16 each way
}

TEST_CASE("reduce on arrival: only a single, unreplicated partial that reduces pairwise, to other processes") {
  const TensorSpec tensor{{8, 4}, DType::F32};
  const CostModel costs;
  const Placements shard0{Placement::shard(0)};
  CHECK_FALSE(reduceOnArrival(layoutOf(kStage0, {Placement::partial(ReduceType::Avg)}), layoutOf(kStage1, shard0),
                              tensor, costs));
  CHECK_FALSE(reduceOnArrival(layoutOf(kStage0, {Placement::shard(0)}), layoutOf(kStage1, shard0), tensor, costs));
  const ProcessMesh reversed{{2}, {1, 0}, true};
  CHECK_FALSE(reduceOnArrival(layoutOf(kStage0, {Placement::partial(ReduceType::Sum)}), layoutOf(reversed, shard0),
                              tensor, costs));
  const ProcessMesh grid{{2, 2}, {0, 1, 2, 3}, true};
  const ProcessMesh next{{2, 2}, {4, 5, 6, 7}, true};
  CHECK_FALSE(reduceOnArrival(layoutOf(grid, {Placement::replicate(), Placement::partial(ReduceType::Sum)}),
                              layoutOf(next, {Placement::shard(0), Placement::replicate()}), tensor, costs));
  CHECK(reduceOnArrival(layoutOf(grid, {Placement::shard(0), Placement::partial(ReduceType::Max)}),
                        layoutOf(next, {Placement::replicate(), Placement::shard(0)}), tensor, costs));
}

TEST_CASE("reduce on arrival: P(SUM) on [0,1] -> R on [2,3] is one step within a node, two between nodes") {
  const ReshardRequest request{{2048, 1024}, DType::BF16, attrOn(kStage0, {-1, -1}, {{0, ReduceType::Sum}}),
                               attrOn(kStage1, {-1, -1})};
  const Plan withinNode = planMinCost(request, CostModel{});
  REQUIRE(withinNode.steps.size() == 1);
  CHECK(withinNode.steps[0].reduce == ReduceType::Sum);
  CHECK(measurePlan(withinNode, CostModel{}).busBytes == 8388608);
  checkExecutes(withinNode);
  CostModel ownNodes;
  ownNodes.processesPerNode = 1;
  const Plan betweenNodes = planMinCost(request, ownNodes);
  const PlanMeasure measure = measurePlan(betweenNodes, ownNodes);
  CHECK(measure.collectives == 2);  // Paddle: send_recv, all_reduce (2, 8388608)
  CHECK(measure.busBytes == 6291456);
  checkExecutes(betweenNodes);
}

TEST_CASE("reduce on arrival: every reduce type but AVG, to shards and replicas, moves the right data") {
  const ProcessMesh grid{{2, 2}, {0, 1, 2, 3}, true};
  const ProcessMesh next{{2, 2}, {4, 5, 6, 7}, true};
  for (const ReduceType type : {ReduceType::Sum, ReduceType::Max, ReduceType::Min, ReduceType::Product})
    for (const std::vector<int64_t>& dims : {std::vector<int64_t>{-1, -1}, std::vector<int64_t>{1, -1},
                                             std::vector<int64_t>{0, 1}}) {
      CAPTURE(reduceTypeName(type));
      const TensorDistAttr src = attrOn(grid, {0, -1}, {{1, type}});
      const Layout from{grid, {Placement::shard(0), Placement::partial(type)}};
      const TensorDistAttr dst = attrOn(next, dims);
      const auto edge = reduceOnArrival(from, toLayout(dst), TensorSpec{{6, 5}, DType::F32}, CostModel{});
      REQUIRE(edge);
      Plan plan;
      plan.src = toLayout(src);
      plan.dst = toLayout(dst);
      plan.shape = {6, 5};
      plan.steps = {*edge->step};
      checkExecutes(plan);
    }
}
