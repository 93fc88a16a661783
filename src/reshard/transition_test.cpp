#include "reshard/transition.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include "exec/cpu_executor.h"
#include "exec/reference_data.h"
#include "reshard/local_box.h"
#include "reshard/mesh_coords.h"
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

namespace {

// The pairs of a move by intersection found the slow way, as meshChange found
// them before it derived them per block: each destination in mesh order, the
// distinct source boxes in order of first appearance, each part from the
// destination itself when it holds that box, else the holder that has sent
// the fewest bytes (the first in mesh order among equals).
std::vector<std::vector<int64_t>> pairsRankByRank(const Layout& from, const Layout& to, const TensorSpec& tensor) {
  std::vector<std::pair<Box, std::vector<int64_t>>> sources;
  for (int64_t position = 0; position < from.mesh.size(); ++position) {
    const Box box = localBox(tensor.shape, from, meshCoord(from.mesh, position));
    auto same = std::find_if(sources.begin(), sources.end(), [&](const auto& s) { return s.first == box; });
    if (same == sources.end()) same = sources.insert(sources.end(), {box, {}});
    same->second.push_back(processIdAt(from.mesh, position));
  }
  std::map<int64_t, int64_t> sent;
  std::vector<std::vector<int64_t>> pairs;
  for (int64_t position = 0; position < to.mesh.size(); ++position) {
    const int64_t destination = processIdAt(to.mesh, position);
    const Box wanted = localBox(tensor.shape, to, meshCoord(to.mesh, position));
    for (const auto& [box, holders] : sources) {
      const Box part = intersect(wanted, box);
      if (part.empty()) continue;
      int64_t sender = holders.front();
      if (std::find(holders.begin(), holders.end(), destination) != holders.end()) {
        sender = destination;
      } else {
        for (int64_t holder : holders)
          if (sent[holder] < sent[sender]) sender = holder;
        sent[sender] += part.volume() * dtypeSize(tensor.dtype);
      }
      pairs.push_back({sender, destination});
    }
  }
  return pairs;
}

Placements randomUnreduced(std::mt19937_64& rng, int64_t meshDims, int64_t tensorRank) {
  for (;;) {
    Placements placements;
    for (int64_t dim = 0; dim < meshDims; ++dim) {
      const int64_t choice = static_cast<int64_t>(rng() % static_cast<uint64_t>(tensorRank + 1)) - 1;
      placements.push_back(choice < 0 ? R() : S(choice));
    }
    if (isRepresentable(placements, tensorRank)) return placements;
  }
}

ProcessMesh randomMesh(std::mt19937_64& rng, std::vector<int64_t>& pool) {
  std::vector<int64_t> shape;
  int64_t size = 1;
  for (uint64_t dims = 1 + rng() % 3; dims-- > 0;) {
    shape.push_back(1 + static_cast<int64_t>(rng() % 3));
    size *= shape.back();
  }
  std::shuffle(pool.begin(), pool.end(), rng);
  return ProcessMesh(shape, std::vector<int64_t>(pool.begin(), pool.begin() + size));
}

}  // namespace

TEST_CASE("meshChange by intersection: the pairs per block of chunks are the pairs found rank by rank") {
  std::mt19937_64 rng(11);
  std::vector<int64_t> pool(40);
  std::iota(pool.begin(), pool.end(), 0);
  int compared = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const ProcessMesh fromMesh = randomMesh(rng, pool);
    const ProcessMesh toMesh = randomMesh(rng, pool);  // may share processes with the source
    TensorSpec tensor{{}, DType::F32};
    for (uint64_t dims = 1 + rng() % 3; dims-- > 0;) tensor.shape.push_back(1 + static_cast<int64_t>(rng() % 7));
    const Layout from{fromMesh, randomUnreduced(rng, fromMesh.ndim(), tensor.rank())};
    const Layout to{toMesh, randomUnreduced(rng, toMesh.ndim(), tensor.rank())};
    if (from.mesh.shape == to.mesh.shape && from.placements == to.placements) continue;  // rank to rank
    const auto edge = meshChange(from, to, tensor, kCosts);
    REQUIRE(edge);
    if (!edge->step || edge->step->kind != StepKind::SendRecv) continue;  // nothing sent
    CAPTURE(layoutText(from));
    CAPTURE(layoutText(to));
    CHECK(edge->step->groups == pairsRankByRank(from, to, tensor));
    ++compared;
  }
  CHECK(compared > 200);
}

TEST_CASE("meshChange by intersection: at most maxSendRecvPairs pairs, counted before any is listed") {
  const TensorSpec tensor{{8192, 8}, DType::F32};
  auto mesh1d = [](int64_t size, int64_t first) {
    std::vector<int64_t> ids(static_cast<size_t>(size));
    std::iota(ids.begin(), ids.end(), first);
    return ProcessMesh({size}, ids);
  };
  // 256 x 256 pieces: exactly the bound, listed destination by destination.
  const auto gathered = meshChange({mesh1d(256, 0), {S(0)}}, {mesh1d(256, 256), {R()}}, tensor, kCosts);
  REQUIRE(gathered);
  REQUIRE(gathered->step);
  CHECK(gathered->step->groups.size() == static_cast<size_t>(kMaxSendRecvPairs));
  CHECK(gathered->step->groups[257] == std::vector<int64_t>{1, 257});
  // 4,096 x 4,096 pieces (16.7M pairs): not considered.
  CHECK_FALSE(meshChange({mesh1d(4096, 0), {S(0)}}, {mesh1d(4096, 4096), {R()}}, tensor, kCosts));
  // A resplit lists each destination's meeting chunks: 4,096 + 2,048 - 1 pairs.
  const auto resplit = meshChange({mesh1d(4096, 0), {S(0)}}, {mesh1d(3000, 4096), {S(0)}}, tensor, kCosts);
  REQUIRE(resplit);
  REQUIRE(resplit->step);
  CHECK(resplit->step->groups.size() <= static_cast<size_t>(4096 + 3000));
  // Where the meshes hold more processes than the bound, one part per destination stays possible.
  const auto replicas = meshChange({mesh1d(40000, 0), {R()}}, {mesh1d(40000, 40000), {S(0)}},
                                   TensorSpec{{40000, 8}, DType::F32}, kCosts);
  REQUIRE(replicas);
  REQUIRE(replicas->step);
  CHECK(replicas->step->groups.size() == 40000);
  CHECK(maxSendRecvPairs(mesh1d(40000, 0), mesh1d(40000, 40000)) == 80000);
}

TEST_CASE("planner cross-mesh: P(SUM) between two 1-D meshes of 4,096 ranks lists no more pairs than the bound") {
  std::vector<int64_t> first(4096), second(4096);
  std::iota(first.begin(), first.end(), 0);
  std::iota(second.begin(), second.end(), 4096);
  const ProcessMesh source({4096}, first), destination({4096}, second);
  const ReshardRequest request{{2048, 1024}, DType::F32, attrOn(source, {-1, -1}, {{0, ReduceType::Sum}}),
                               attrOn(destination, {-1, -1})};
  const Plan plan = planMinCost(request, CostModel{});
  REQUIRE_FALSE(plan.steps.empty());
  for (const Step& step : plan.steps)
    if (step.kind == StepKind::SendRecv) CHECK(step.groups.size() <= static_cast<size_t>(kMaxSendRecvPairs));
  CHECK(plan.dst.placements == Placements{R()});
}
