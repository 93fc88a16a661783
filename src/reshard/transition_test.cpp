#include "reshard/transition.h"

#include <doctest/doctest.h>

using namespace reshardctl;

namespace {

const ProcessMesh kMesh2x2{{2, 2}, {0, 1, 2, 3}, true};
const TensorSpec kTensor{{1024, 1024}, DType::F32};
const CostModel kCosts;
constexpr int64_t kBytes = 1024 * 1024 * 4;

Placement S(int64_t dim) { return Placement::shard(dim); }
Placement P(ReduceType type = ReduceType::Sum) { return Placement::partial(type); }
Placement R() { return Placement::replicate(); }

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
