#include "reshard/planner.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "exec/cpu_executor.h"
#include "exec/reference_data.h"

using namespace reshardctl;

namespace {

using Groups = std::vector<std::vector<int64_t>>;

const ProcessMesh kMesh2{{2}, {0, 1}, true};
const ProcessMesh kMesh2x2{{2, 2}, {0, 1, 2, 3}, true};

TensorDistAttr attrOn(const ProcessMesh& mesh, std::vector<int64_t> dims, std::vector<PartialDim> partials = {}) {
  TensorDistAttr attr;
  attr.mesh = mesh;
  attr.dimsMapping = std::move(dims);
  attr.partials = std::move(partials);
  return attr;
}

ReshardRequest request(std::vector<int64_t> shape, TensorDistAttr src, TensorDistAttr dst,
                       DType dtype = DType::F32) {
  return {std::move(shape), dtype, std::move(src), std::move(dst)};
}

std::vector<StepKind> kinds(const Plan& plan) {
  std::vector<StepKind> result;
  for (const Step& step : plan.steps) result.push_back(step.kind);
  return result;
}

// Runs the plan on random data and says whether every rank ends with its piece.
void checkExecutes(const Plan& plan, uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  const GlobalTensor global = randomGlobalTensor(plan.shape, plan.dtype, false, rng);
  DistTensor tensor = makeSourcePieces(global, plan.src, rng);
  executePlan(plan, tensor);
  const PieceCheck check = checkDestinationPieces(tensor, global);
  CHECK_MESSAGE(check.ok(), check.problem, " max error ", check.maxError);
}

const CostModel kCosts;

}  // namespace

TEST_CASE("planner 1-D: P(SUM) -> R is one all_reduce over the mesh") {
  const Plan plan = planMinCost(request({4, 8}, attrOn(kMesh2, {-1, -1}, {{0, ReduceType::Sum}}),
                                        attrOn(kMesh2, {-1, -1})), kCosts);
  REQUIRE(plan.steps.size() == 1);
  const Step& step = plan.steps[0];
  CHECK(step.kind == StepKind::AllReduce);
  CHECK(step.meshDim == 0);
  CHECK(step.reduce == ReduceType::Sum);
  CHECK(step.groups == Groups{{0, 1}});
  CHECK(step.bytesPerRank == 4 * 8 * 4);
  CHECK(plan.estUs == doctest::Approx(kCosts.collectiveUs(StepKind::AllReduce, 2, 128, 0)));
  checkExecutes(plan);
}

TEST_CASE("planner 1-D: P(r) -> S is a reduce_scatter, for every reduce type") {
  for (ReduceType type : {ReduceType::Sum, ReduceType::Max, ReduceType::Min, ReduceType::Product,
                          ReduceType::Avg, ReduceType::Any, ReduceType::All}) {
    CAPTURE(reduceTypeName(type));
    const DType dtype = type == ReduceType::Any || type == ReduceType::All ? DType::Bool : DType::F32;
    const Plan plan = planMinCost(request({4, 8}, attrOn(kMesh2, {-1, -1}, {{0, type}}), attrOn(kMesh2, {-1, 0}),
                                          dtype), kCosts);
    REQUIRE(plan.steps.size() == 1);
    CHECK(plan.steps[0].kind == StepKind::ReduceScatter);
    CHECK(plan.steps[0].reduce == type);
    CHECK(plan.steps[0].tensorDim == 1);
    CHECK(plan.steps[0].bytesPerRank == 2 * 4 * 4 * dtypeSize(dtype));  // k blocks of the 4x4 chunk
    checkExecutes(plan);
  }
}

TEST_CASE("planner 1-D: S -> R all_gather, S -> S all_to_all, R -> S slice") {
  const Plan gather = planMinCost(request({4, 8}, attrOn(kMesh2, {0, -1}), attrOn(kMesh2, {-1, -1})), kCosts);
  REQUIRE(kinds(gather) == std::vector{StepKind::AllGather});
  CHECK(gather.steps[0].tensorDim == 0);
  CHECK(gather.steps[0].bytesPerRank == 2 * 8 * 4);  // the send buffer: one chunk
  checkExecutes(gather);

  const Plan swap = planMinCost(request({4, 8}, attrOn(kMesh2, {0, -1}), attrOn(kMesh2, {-1, 0})), kCosts);
  REQUIRE(kinds(swap) == std::vector{StepKind::AllToAll});
  CHECK(swap.steps[0].fromTensorDim == 0);
  CHECK(swap.steps[0].tensorDim == 1);
  CHECK(swap.steps[0].bytesPerRank == 2 * 8 * 4);
  checkExecutes(swap);

  const Plan slice = planMinCost(request({4, 8}, attrOn(kMesh2, {-1, -1}), attrOn(kMesh2, {-1, 0})), kCosts);
  REQUIRE(kinds(slice) == std::vector{StepKind::Slice});
  CHECK(slice.steps[0].tensorDim == 1);
  CHECK(slice.steps[0].bytesPerRank == 4 * 4 * 4);
  checkExecutes(slice);
}

TEST_CASE("planner 1-D: R -> P and S -> P are local partial_init steps") {
  const Plan fromReplicated = planMinCost(
      request({4, 8}, attrOn(kMesh2, {-1, -1}), attrOn(kMesh2, {-1, -1}, {{0, ReduceType::Max}})), kCosts);
  REQUIRE(kinds(fromReplicated) == std::vector{StepKind::PartialInit});
  CHECK(fromReplicated.steps[0].reduce == ReduceType::Max);
  CHECK(fromReplicated.steps[0].fromTensorDim == -1);
  checkExecutes(fromReplicated);

  const Plan fromShard = planMinCost(
      request({5, 3}, attrOn(kMesh2, {0, -1}), attrOn(kMesh2, {-1, -1}, {{0, ReduceType::Sum}})), kCosts);
  REQUIRE(kinds(fromShard) == std::vector{StepKind::PartialInit});
  CHECK(fromShard.steps[0].fromTensorDim == 0);
  checkExecutes(fromShard);
}

TEST_CASE("planner 1-D: S -> P(AVG) gathers first, as padding would not average back") {
  const Plan plan = planMinCost(
      request({4, 8}, attrOn(kMesh2, {0, -1}), attrOn(kMesh2, {-1, -1}, {{0, ReduceType::Avg}})), kCosts);
  CHECK(kinds(plan) == std::vector{StepKind::AllGather, StepKind::PartialInit});
  checkExecutes(plan);
}

TEST_CASE("planner 1-D: P(SUM) -> P(MAX) reduce-scatters, then pads, instead of all-reducing") {
  const Plan plan = planMinCost(request({4, 8}, attrOn(kMesh2, {-1, -1}, {{0, ReduceType::Sum}}),
                                        attrOn(kMesh2, {-1, -1}, {{0, ReduceType::Max}})), kCosts);
  CHECK(kinds(plan) == std::vector{StepKind::ReduceScatter, StepKind::PartialInit});
  CHECK(plan.steps[1].fromTensorDim == plan.steps[0].tensorDim);
  const Plan greedy = planGreedy(request({4, 8}, attrOn(kMesh2, {-1, -1}, {{0, ReduceType::Sum}}),
                                         attrOn(kMesh2, {-1, -1}, {{0, ReduceType::Max}})), kCosts);
  CHECK(kinds(greedy) == std::vector{StepKind::AllReduce, StepKind::PartialInit});
  CHECK(plan.estUs < greedy.estUs);
  checkExecutes(plan);
}

TEST_CASE("planner 1-D: uneven shapes pad the collective buffers to full chunks") {
  const ProcessMesh mesh4{{4}, {0, 1, 2, 3}, true};
  const Plan plan = planMinCost(request({5, 3}, attrOn(mesh4, {0, -1}), attrOn(mesh4, {-1, -1})), kCosts);
  REQUIRE(kinds(plan) == std::vector{StepKind::AllGather});
  CHECK(plan.steps[0].bytesPerRank == 2 * 3 * 4);  // ceil(5/4) rows, though rank 3 holds none
  checkExecutes(plan);
}

TEST_CASE("planner 1-D: equal layouts need no steps") {
  const Plan plan = planMinCost(request({4}, attrOn(kMesh2, {0}), attrOn(kMesh2, {0})), kCosts);
  CHECK(plan.steps.empty());
  CHECK(plan.estUs == 0.0);
}

TEST_CASE("planner 2-D: each primitive runs on the groups along its mesh dim") {
  const auto single = [](TensorDistAttr src, TensorDistAttr dst) {
    const Plan plan = planMinCost(request({4, 8}, std::move(src), std::move(dst)), kCosts);
    checkExecutes(plan);
    REQUIRE(plan.steps.size() == 1);
    return plan.steps[0];
  };
  const Step reduce = single(attrOn(kMesh2x2, {-1, 1}, {{0, ReduceType::Sum}}), attrOn(kMesh2x2, {-1, 1}));
  CHECK(reduce.kind == StepKind::AllReduce);
  CHECK(reduce.meshDim == 0);
  CHECK(reduce.groups == Groups{{0, 2}, {1, 3}});
  CHECK(reduce.bytesPerRank == 4 * 4 * 4);  // tensor dim 1 is split in two by mesh dim 1

  const Step scatter = single(attrOn(kMesh2x2, {-1, 0}, {{1, ReduceType::Min}}), attrOn(kMesh2x2, {1, 0}));
  CHECK(scatter.kind == StepKind::ReduceScatter);
  CHECK(scatter.meshDim == 1);
  CHECK(scatter.groups == Groups{{0, 1}, {2, 3}});
  CHECK(scatter.reduce == ReduceType::Min);

  const Step gather = single(attrOn(kMesh2x2, {0, 1}), attrOn(kMesh2x2, {0, -1}));
  CHECK(gather.kind == StepKind::AllGather);
  CHECK(gather.meshDim == 1);
  CHECK(gather.bytesPerRank == 2 * 4 * 4);

  const Step swap = single(attrOn(kMesh2x2, {1, -1}), attrOn(kMesh2x2, {-1, 1}));
  CHECK(swap.kind == StepKind::AllToAll);
  CHECK(swap.meshDim == 1);

  const Step slice = single(attrOn(kMesh2x2, {-1, 1}), attrOn(kMesh2x2, {0, 1}));
  CHECK(slice.kind == StepKind::Slice);
  CHECK(slice.meshDim == 0);

  const Step init = single(attrOn(kMesh2x2, {0, -1}), attrOn(kMesh2x2, {0, -1}, {{1, ReduceType::Product}}));
  CHECK(init.kind == StepKind::PartialInit);
  CHECK(init.meshDim == 1);
  CHECK(init.reduce == ReduceType::Product);
}

TEST_CASE("planner 2-D: a tensor dim moving between mesh dims sends each rank the half it lacks") {
  // Ranks 0 and 3 hold their new half already; 1 and 2 receive theirs, where
  // gathering and slicing would move the whole tensor to every rank.
  const Plan plan = planMinCost(request({4, 8}, attrOn(kMesh2x2, {0, -1}), attrOn(kMesh2x2, {1, -1})), kCosts);
  REQUIRE(kinds(plan) == std::vector{StepKind::SendRecv});
  CHECK(plan.steps[0].groups == Groups{{0, 0}, {2, 1}, {0, 2}, {3, 3}});
  checkExecutes(plan);
  // Paddle's per-mesh-dim order gathers and slices.
  const Plan greedy = planGreedy(request({4, 8}, attrOn(kMesh2x2, {0, -1}), attrOn(kMesh2x2, {1, -1})), kCosts);
  CHECK(kinds(greedy) == std::vector{StepKind::AllGather, StepKind::Slice});
  CHECK(plan.estUs < greedy.estUs);
}

TEST_CASE("planner 2-D: partial over both mesh dims of a large tensor avoids two full all-reduces") {
  const auto req = request({4096, 4096}, attrOn(kMesh2x2, {-1, -1}, {{0, ReduceType::Sum}, {1, ReduceType::Sum}}),
                           attrOn(kMesh2x2, {-1, -1}));
  const Plan plan = planMinCost(req, kCosts);
  const Plan greedy = planGreedy(req, kCosts);
  CHECK(kinds(greedy) == std::vector{StepKind::AllReduce, StepKind::AllReduce});
  CHECK(plan.estUs < greedy.estUs);
  // One all_reduce over the flattened group of the 4 ranks: the bus bytes of a
  // reduce_scatter, an all_reduce of halves and an all_gather, in one launch.
  REQUIRE(kinds(plan) == std::vector{StepKind::AllReduce});
  CHECK(plan.steps.front().meshDims == std::vector<int64_t>{0, 1});
}

TEST_CASE("planner 2-D: mixed reduce types are reduced lowest mesh dim first") {
  const Plan plan = planMinCost(request({3, 2}, attrOn(kMesh2x2, {-1, -1}, {{0, ReduceType::Max}, {1, ReduceType::Sum}}),
                                        attrOn(kMesh2x2, {-1, -1})), kCosts);
  REQUIRE(!plan.steps.empty());
  CHECK(plan.steps[0].meshDim == 0);
  CHECK(plan.steps[0].reduce == ReduceType::Max);
  checkExecutes(plan);
}

TEST_CASE("planner 2-D: a mesh dim of one rank changes placement without a step") {
  const ProcessMesh mesh1x2{{1, 2}, {0, 1}, true};
  const Plan plan = planMinCost(request({4, 8}, attrOn(mesh1x2, {0, -1}, {{1, ReduceType::Sum}}),
                                        attrOn(mesh1x2, {-1, -1})), kCosts);
  CHECK(kinds(plan) == std::vector{StepKind::AllReduce});
  CHECK(plan.steps[0].meshDim == 1);
  checkExecutes(plan);
}

TEST_CASE("planner cross-mesh: equal shapes and placements send rank to rank") {
  const ProcessMesh other{{2}, {2, 3}, true};
  const Plan plan = planMinCost(request({4, 8}, attrOn(kMesh2, {0, -1}), attrOn(other, {0, -1})), kCosts);
  REQUIRE(kinds(plan) == std::vector{StepKind::SendRecv});
  CHECK(plan.steps[0].groups == Groups{{0, 2}, {1, 3}});
  CHECK(plan.steps[0].meshDim == -1);
  CHECK(plan.steps[0].bytesPerRank == 2 * 8 * 4);
  checkExecutes(plan);
}

TEST_CASE("planner cross-mesh: layout changes happen on the side that makes the move smaller") {
  const ProcessMesh other{{2}, {2, 3}, true};
  // Each destination receives only its half, each from a different source.
  const Plan split = planMinCost(request({1024, 1024}, attrOn(kMesh2, {-1, -1}), attrOn(other, {0, -1})), kCosts);
  REQUIRE(kinds(split) == std::vector{StepKind::SendRecv});
  CHECK(split.steps[0].groups == Groups{{0, 2}, {1, 3}});
  CHECK(split.steps[0].bytesPerRank == 512 * 1024 * 4);
  checkExecutes(split);

  // Across nodes (every process a node of its own) the reduction happens
  // before the slow link, so that only half of each piece crosses it.
  CostModel acrossNodes;
  acrossNodes.processesPerNode = 1;
  const ReshardRequest partial = request({1024, 1024}, attrOn(kMesh2, {-1, -1}, {{0, ReduceType::Sum}}),
                                         attrOn(other, {-1, -1}));
  const Plan reduce = planMinCost(partial, acrossNodes);
  CHECK(kinds(reduce) == std::vector{StepKind::ReduceScatter, StepKind::SendRecv});
  CHECK(reduce.steps[1].groups == Groups{{0, 2}, {1, 2}, {0, 3}, {1, 3}});
  checkExecutes(reduce);
  // Within one node the move between meshes is on NVLink too: each source
  // sends its whole piece to both destinations, which sum what arrives
  // (reshard/reduce_on_arrival.h): one collective.
  const Plan withinNode = planMinCost(partial, kCosts);
  REQUIRE(kinds(withinNode) == std::vector{StepKind::SendRecv});
  CHECK(withinNode.steps[0].reduce == ReduceType::Sum);
  CHECK(withinNode.steps[0].groups == Groups{{0, 2}, {1, 2}, {0, 3}, {1, 3}});
  CHECK(withinNode.estUs < reduce.estUs);
  checkExecutes(withinNode);
}

TEST_CASE("planner cross-mesh: a move between nodes is priced on the network, within a node on NVLink") {
  const ProcessMesh sameNode{{2}, {2, 3}, true};
  const ProcessMesh nextNode{{2}, {8, 9}, true};
  const auto send = [](const ProcessMesh& to) {
    return planMinCost(request({1024, 1024}, attrOn(kMesh2, {0, -1}), attrOn(to, {0, -1})), kCosts);
  };
  const Plan near = send(sameNode);
  const Plan far = send(nextNode);
  REQUIRE(kinds(near) == std::vector{StepKind::SendRecv});
  REQUIRE(kinds(far) == std::vector{StepKind::SendRecv});
  const int64_t bytes = 512 * 1024 * 4;
  CHECK(near.estUs == doctest::Approx(kCosts.withinNodeUs(bytes, 1)));
  CHECK(far.estUs == doctest::Approx(kCosts.sendRecvUs(bytes)));
  CHECK(near.estUs < far.estUs);
}

TEST_CASE("planner: requests that differ only in process ids share the route, each with its own ids") {
  const ProcessMesh first{{2, 2}, {0, 1, 2, 3}, true};
  const ProcessMesh second{{2, 2}, {13, 12, 11, 10}, true};
  auto plan = [](const ProcessMesh& mesh) {
    return planMinCost(request({64, 32}, attrOn(mesh, {0, -1}, {{1, ReduceType::Sum}}), attrOn(mesh, {-1, 0})),
                       kCosts);
  };
  const Plan a = plan(first);
  const Plan b = plan(second);  // from the memo
  REQUIRE(a.steps.size() == b.steps.size());
  CHECK(b.src.mesh.processIds == second.processIds);
  for (size_t i = 0; i < a.steps.size(); ++i) {
    CHECK(a.steps[i].kind == b.steps[i].kind);
    CHECK(a.steps[i].estUs == b.steps[i].estUs);
    for (const auto& group : b.steps[i].groups)
      for (int64_t id : group) CHECK((id >= 10 && id <= 13));
  }
  checkExecutes(b);
}

TEST_CASE("planner cross-mesh: different mesh shapes move the intersecting parts") {
  const ProcessMesh mesh4{{2, 2}, {4, 5, 6, 7}, true};
  const Plan plan = planMinCost(request({4, 6}, attrOn(kMesh2, {0, -1}), attrOn(mesh4, {0, 1})), kCosts);
  REQUIRE(kinds(plan) == std::vector{StepKind::SendRecv});
  // Destination (r, c) holds rows [2r, 2r+2), which source r holds alone.
  CHECK(plan.steps[0].groups == Groups{{0, 4}, {0, 5}, {1, 6}, {1, 7}});
  CHECK(plan.steps[0].bytesPerRank == 2 * 2 * 3 * 4);  // each source sends two 2x3 blocks
  checkExecutes(plan);
}

TEST_CASE("planner cross-mesh: overlapping meshes keep what a process already holds") {
  const ProcessMesh shifted{{2}, {1, 2}, true};
  const Plan plan = planMinCost(request({4, 8}, attrOn(kMesh2, {-1, -1}), attrOn(shifted, {-1, -1})), kCosts);
  REQUIRE(kinds(plan) == std::vector{StepKind::SendRecv});
  checkExecutes(plan);
  const Plan spread = planMinCost(request({6}, attrOn(kMesh2, {-1}), attrOn(ProcessMesh{{3}, {0, 1, 2}, true}, {-1})),
                                  kCosts);
  REQUIRE(!spread.steps.empty());
  const Step& move = spread.steps.back();
  CHECK(move.kind == StepKind::SendRecv);
  for (const auto& pair : move.groups)
    if (pair[1] < 2) CHECK(pair[0] == pair[1]);  // processes 0 and 1 already hold the tensor
  checkExecutes(spread);
}

TEST_CASE("planner: requests that fit no layout are rejected") {
  CHECK_THROWS_AS(planMinCost(request({4}, attrOn(kMesh2, {0, -1}), attrOn(kMesh2, {-1})), kCosts), PlanError);
  CHECK_THROWS_AS(planMinCost(request({4, 4}, attrOn(kMesh2, {0, 0}), attrOn(kMesh2, {-1, -1})), kCosts), PlanError);
  const ProcessMesh badIds{{2}, {0, 0}, true};
  CHECK_THROWS_AS(planMinCost(request({4}, attrOn(badIds, {0}), attrOn(kMesh2, {-1})), kCosts), PlanError);
  // ANY partial pieces must be 0/1, so they cannot sit below a SUM split.
  CHECK_THROWS_AS(planMinCost(request({4}, attrOn(kMesh2x2, {-1}),
                                      attrOn(kMesh2x2, {-1}, {{0, ReduceType::Any}, {1, ReduceType::Sum}})), kCosts),
                  PlanError);
}

TEST_CASE("planner: integers never get an AVG below a MAX or MIN (differential seed 4533)") {
  // The AVG pieces all hold the value, so reducing them sums the MAX pieces,
  // whose identity fills are the type's lowest value: an i32 sum overflows.
  const ProcessMesh mesh{{1, 2, 3}, {0, 1, 2, 3, 4, 5}, true};
  const TensorDistAttr src = attrOn(mesh, {2}, {{0, ReduceType::Avg}});
  const TensorDistAttr dst = attrOn(mesh, {-1}, {{0, ReduceType::Product}, {1, ReduceType::Avg}, {2, ReduceType::Max}});
  CHECK_THROWS_WITH_AS(planMinCost(request({3}, src, dst, DType::I32), kCosts),
                       doctest::Contains("the AVG reduction would sum the MAX identities, which overflow i32"),
                       PlanError);
  // Floats hold -inf, whose mean is -inf: planned, and right.
  checkExecutes(planMinCost(request({3}, src, dst, DType::F32), kCosts), 5);
  // No plan passes through such a state on the way to a destination without it.
  const Plan plan = planMinCost(request({3}, src, attrOn(mesh, {-1}, {{1, ReduceType::Avg}}), DType::I32), kCosts);
  checkExecutes(plan, 5);
}

TEST_CASE("planner: bool tensors may hold ANY/ALL below any other reduce type") {
  // Every bool piece is 0/1 and every reduce type keeps it so: the destination
  // f32 cannot have is made, and the run proves it.
  for (ReduceType high : {ReduceType::Sum, ReduceType::Max, ReduceType::Min, ReduceType::Product, ReduceType::Avg})
    for (ReduceType low : {ReduceType::Any, ReduceType::All}) {
      CAPTURE(reduceTypeName(low));
      CAPTURE(reduceTypeName(high));
      for (const auto& src : {attrOn(kMesh2x2, {-1}), attrOn(kMesh2x2, {0}), attrOn(kMesh2x2, {-1}, {{1, high}})}) {
        const Plan plan = planMinCost(request({4}, src, attrOn(kMesh2x2, {-1}, {{0, low}, {1, high}}), DType::Bool),
                                      kCosts);
        checkExecutes(plan, 3);
      }
    }
}

TEST_CASE("planner: a source with ANY below SUM is reduced lowest mesh dim first (issue 16, B2)") {
  const Plan plan = planMinCost(
      request({4}, attrOn(kMesh2x2, {-1}, {{0, ReduceType::Any}, {1, ReduceType::Sum}}), attrOn(kMesh2x2, {-1})),
      kCosts);
  REQUIRE(kinds(plan) == std::vector{StepKind::AllReduce, StepKind::AllReduce});
  CHECK(plan.steps[0].reduce == ReduceType::Any);
  CHECK(plan.steps[1].reduce == ReduceType::Sum);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    const GlobalTensor global = randomGlobalTensor(plan.shape, plan.dtype, true, rng);
    DistTensor tensor = makeSourcePieces(global, plan.src, rng);
    executePlan(plan, tensor);
    CHECK(checkDestinationPieces(tensor, global).ok());
  }
}

TEST_CASE("planner cross-mesh: a move in which no process sends to another is no send_recv") {
  const ProcessMesh global{{4}, {0, 1, 2, 3}, true};
  const ProcessMesh upper{{2}, {2, 3}, true};
  // Global to sub-mesh, replicated: every process of the sub-mesh holds it already.
  const Plan relabel = planMinCost(request({4, 8}, attrOn(global, {-1, -1}), attrOn(upper, {-1, -1})), kCosts);
  CHECK(relabel.steps.empty());
  checkExecutes(relabel);
  // To a split: each keeps part of what it holds, a local slice.
  const Plan narrow = planMinCost(request({4, 8}, attrOn(global, {-1, -1}), attrOn(upper, {0, -1})), kCosts);
  REQUIRE(kinds(narrow) == std::vector{StepKind::Slice});
  CHECK(narrow.steps[0].groups == Groups{{2, 3}});
  CHECK(narrow.steps[0].bytesPerRank == 2 * 8 * 4);
  checkExecutes(narrow);
  // An N-D mesh to a 1-D mesh over the same ids: only the slice, never a move.
  const Plan flatten = planMinCost(request({4, 8}, attrOn(kMesh2x2, {0, -1}), attrOn(global, {0, -1})), kCosts);
  CHECK(kinds(flatten) == std::vector{StepKind::Slice});
  checkExecutes(flatten);
  for (const Plan& plan : {relabel, narrow, flatten, planGreedy(request({4, 8}, attrOn(global, {-1, -1}),
                                                                          attrOn(upper, {0, -1})), kCosts)})
    for (const Step& step : plan.steps) CHECK(step.kind != StepKind::SendRecv);
}

TEST_CASE("planner: unknown dims are costed as 1 and flagged") {
  const Plan plan = planMinCost(request({-1, 8}, attrOn(kMesh2, {-1, -1}, {{0, ReduceType::Sum}}),
                                        attrOn(kMesh2, {-1, -1})), kCosts);
  CHECK_FALSE(plan.shapeKnown);
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].bytesPerRank == 8 * 4);
}

TEST_CASE("planner 4-D: mixed partials and a move to a 4x4 mesh execute correctly and beat greedy") {
  const ProcessMesh mesh16{{2, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, true};
  const ProcessMesh square{{4, 4}, {16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31}, true};
  const auto onMesh = request({8, 6, 5, 4}, attrOn(mesh16, {0, 1, -1, -1}, {{2, ReduceType::Sum}, {3, ReduceType::Max}}),
                              attrOn(mesh16, {-1, -1, 3, 2}, {{0, ReduceType::Min}}));
  const auto across = request({8, 6, 5, 4}, attrOn(mesh16, {0, 1, 2, 3}), attrOn(square, {1, 0, -1, -1}));
  for (const auto& req : {onMesh, across}) {
    const Plan plan = planMinCost(req, kCosts);
    CHECK(plan.estUs < planGreedy(req, kCosts).estUs);
    checkExecutes(plan);
  }
}

TEST_CASE("planner: a slow mesh dim carries less data") {
  const auto req = request({512, 512}, attrOn(kMesh2x2, {-1, -1}, {{0, ReduceType::Sum}, {1, ReduceType::Sum}}),
                           attrOn(kMesh2x2, {-1, -1}));
  auto bytesOnDim1 = [](const Plan& plan) {
    int64_t bytes = 0;
    for (const Step& step : plan.steps) {
      const bool flattenedOverDim1 = std::find(step.meshDims.begin(), step.meshDims.end(), 1) != step.meshDims.end();
      bytes += step.meshDim == 1 || flattenedOverDim1 ? step.bytesPerRank : 0;
    }
    return bytes;
  };
  CostModel slowDim1;
  slowDim1.setMeshDimLinks({370.0, 12.5}, {0.6, 5.0});  // mesh dim 1 crosses nodes
  const Plan fast = planMinCost(req, kCosts);
  const Plan slow = planMinCost(req, slowDim1);
  CHECK(bytesOnDim1(slow) < bytesOnDim1(fast));
  checkExecutes(slow);
}

TEST_CASE("planner: the same ranks in another order move only what changes holder") {
  const ProcessMesh reversed{{2}, {1, 0}, true};
  const std::vector<PartialDim> sum{{0, ReduceType::Sum}};
  SUBCASE("R on [0,1] -> R on [1,0]: every rank holds the tensor, no step") {
    const Plan plan = planMinCost(request({4096, 4096}, attrOn(kMesh2, {-1, -1}), attrOn(reversed, {-1, -1})), kCosts);
    CHECK(plan.steps.empty());
    checkExecutes(plan);
  }
  SUBCASE("P(SUM) on [0,1] -> P(SUM) on [1,0]: the pieces of a sum are interchangeable, no step") {
    const Plan plan =
        planMinCost(request({64, 64}, attrOn(kMesh2, {-1, -1}, sum), attrOn(reversed, {-1, -1}, sum)), kCosts);
    CHECK(plan.steps.empty());
    checkExecutes(plan);
  }
  SUBCASE("P(SUM) on [0,1] -> R on [1,0]: one all_reduce") {
    const Plan plan = planMinCost(request({64, 64}, attrOn(kMesh2, {-1, -1}, sum), attrOn(reversed, {-1, -1})), kCosts);
    CHECK(kinds(plan) == std::vector<StepKind>{StepKind::AllReduce});
    checkExecutes(plan);
  }
  SUBCASE("S(0) on [0,1] -> S(0) on [1,0]: the two halves swap") {
    const Plan plan = planMinCost(request({64, 64}, attrOn(kMesh2, {0, -1}), attrOn(reversed, {0, -1})), kCosts);
    CHECK(!plan.steps.empty());
    checkExecutes(plan);
  }
  SUBCASE("[P(SUM),R] with rows swapped: a piece's place in its group matters, the data still arrives") {
    const ProcessMesh swapped{{2, 2}, {2, 3, 0, 1}, true};
    const Plan plan = planMinCost(
        request({16, 16}, attrOn(kMesh2x2, {-1, -1}, sum), attrOn(swapped, {-1, -1}, sum)), kCosts);
    checkExecutes(plan);
    const ProcessMesh columnsSwapped{{2, 2}, {1, 0, 3, 2}, true};
    checkExecutes(planMinCost(
        request({16, 16}, attrOn(kMesh2x2, {-1, -1}, sum), attrOn(columnsSwapped, {-1, -1}, sum)), kCosts));
  }
}

TEST_CASE("planner: partials of one type over several mesh dims reduce in one all_reduce over their flattened group") {
  const std::vector<PartialDim> both{{0, ReduceType::Sum}, {1, ReduceType::Sum}};
  SUBCASE("[P,P] -> [R,R] on 4x2: one all_reduce over the 8 ranks") {
    const ProcessMesh mesh{{4, 2}, {0, 1, 2, 3, 4, 5, 6, 7}, true};
    const Plan plan = planMinCost(request({16, 16, 16}, attrOn(mesh, {-1, -1, -1}, both), attrOn(mesh, {-1, -1, -1})), kCosts);
    REQUIRE(kinds(plan) == std::vector<StepKind>{StepKind::AllReduce});
    CHECK(plan.steps[0].meshDims == std::vector<int64_t>{0, 1});
    CHECK(plan.steps[0].groups == Groups{{0, 1, 2, 3, 4, 5, 6, 7}});
    checkExecutes(plan);
  }
  SUBCASE("[P,R,P] -> [R,R,R] on 2x2x2: non-adjacent dims, groups of the ranks that differ on dims 0 and 2") {
    const ProcessMesh mesh{{2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}, true};
    const Plan plan = planMinCost(
        request({16, 16}, attrOn(mesh, {-1, -1}, {{0, ReduceType::Sum}, {2, ReduceType::Sum}}), attrOn(mesh, {-1, -1})),
        kCosts);
    REQUIRE(kinds(plan) == std::vector<StepKind>{StepKind::AllReduce});
    CHECK(plan.steps[0].meshDims == std::vector<int64_t>{0, 2});
    CHECK(plan.steps[0].groups == Groups{{0, 1, 4, 5}, {2, 3, 6, 7}});
    checkExecutes(plan);
  }
  SUBCASE("AVG is never flattened: its integer division would round once instead of twice") {
    const std::vector<PartialDim> avg{{0, ReduceType::Avg}, {1, ReduceType::Avg}};
    const Plan plan = planMinCost(request({8, 8}, attrOn(kMesh2x2, {-1, -1}, avg), attrOn(kMesh2x2, {-1, -1})), kCosts);
    CHECK(plan.steps.size() == 2);
    checkExecutes(plan);
  }
  SUBCASE("priced on the slowest of the links") {
    CostModel slowSecond;
    slowSecond.setMeshDimLinks({370, 25}, {0.6, 5});
    const double flat = slowSecond.collectiveUs(StepKind::AllReduce, 4, 1 << 20, std::vector<int64_t>{0, 1});
    CHECK(flat == doctest::Approx(slowSecond.collectiveUs(StepKind::AllReduce, 4, 1 << 20, 1)));
    CHECK(flat > kCosts.collectiveUs(StepKind::AllReduce, 4, 1 << 20, std::vector<int64_t>{0, 1}));
  }
}

TEST_CASE("planner: a permutation of pieces is one send_recv that moves only what changes holder") {
  SUBCASE("[S(0),S(1)] -> [S(1),S(0)] on 2x2: half the bytes of all_gather + all_to_all, in one step") {
    const Plan plan = planMinCost(request({16, 16}, attrOn(kMesh2x2, {0, 1}), attrOn(kMesh2x2, {1, 0})), kCosts);
    REQUIRE(plan.steps.size() == 1);
    CHECK(plan.steps[0].kind == StepKind::SendRecv);
    CHECK(plan.steps[0].bytesPerRank == 16 * 16 * 4 / 4);
    checkExecutes(plan);
  }
  SUBCASE("uneven pieces and a replicated source dim") {
    checkExecutes(planMinCost(request({5, 7}, attrOn(kMesh2x2, {0, 1}), attrOn(kMesh2x2, {1, 0})), kCosts));
    const Plan plan = planMinCost(request({5, 7}, attrOn(kMesh2x2, {0, -1}), attrOn(kMesh2x2, {1, -1})), kCosts);
    CHECK(kinds(plan) == std::vector<StepKind>{StepKind::SendRecv});
    checkExecutes(plan);
  }
  SUBCASE("the bounded search finds it too: a shortcut of its route") {
    const Plan plan = planDimByDim(request({16, 16}, attrOn(kMesh2x2, {0, 1}), attrOn(kMesh2x2, {1, 0})), kCosts);
    CHECK(kinds(plan) == std::vector<StepKind>{StepKind::SendRecv});
    checkExecutes(plan);
  }
}

TEST_CASE("planner: several split or partial mesh dims gather or scatter in one collective over their flattened group") {
  const ProcessMesh mesh{{2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}, true};
  SUBCASE("[P,P] -> [S(0),S(1)] on 2x2: one reduce_scatter over the 4 ranks") {
    const Plan plan = planMinCost(request({6, 5}, attrOn(kMesh2x2, {-1, -1}, {{0, ReduceType::Sum}, {1, ReduceType::Sum}}),
                                          attrOn(kMesh2x2, {0, 1})),
                                  kCosts);
    REQUIRE(plan.steps.size() == 1);
    CHECK(plan.steps[0].kind == StepKind::ReduceScatter);
    CHECK(plan.steps[0].meshDims == std::vector<int64_t>{0, 1});
    checkExecutes(plan);
  }
  SUBCASE("[S(0),R,S(1)] -> [R,R,R] on 2x2x2: one all_gather over non-adjacent dims") {
    const Plan plan = planMinCost(request({64, 64, 64}, attrOn(mesh, {0, 2, -1}), attrOn(mesh, {-1, -1, -1})), kCosts);
    REQUIRE(plan.steps.size() == 1);
    CHECK(plan.steps[0].kind == StepKind::AllGather);
    CHECK(plan.steps[0].meshDims == std::vector<int64_t>{0, 2});
    CHECK(plan.steps[0].groups == Groups{{0, 1, 4, 5}, {2, 3, 6, 7}});
    checkExecutes(plan);
  }
  SUBCASE("uneven blocks") {
    checkExecutes(planMinCost(request({5, 3, 7}, attrOn(mesh, {0, 2, -1}), attrOn(mesh, {-1, -1, -1})), kCosts));
  }
}

TEST_CASE("planner: a tensor is too large only where a padded buffer could overflow 64 bits") {
  // 8 dims of 4 on an 8-dim mesh of 256 ranks: 256 KiB; padding each dim by
  // the whole mesh's ranks (260^8 x 4 bytes) called it too large.
  const ProcessMesh mesh(std::vector<int64_t>(8, 2), [] {
    std::vector<int64_t> ids(256);
    for (int64_t id = 0; id < 256; ++id) ids[static_cast<size_t>(id)] = id;
    return ids;
  }());
  const ReshardRequest request{std::vector<int64_t>(8, 4), DType::F32,
                               TensorDistAttr{mesh, {0, 1, 2, 3, 4, 5, 6, 7}, {}, {}},
                               TensorDistAttr{mesh, std::vector<int64_t>(8, -1), {}, {}}};
  CHECK_FALSE(planMinCost(request, CostModel{}).steps.empty());
  ReshardRequest huge = request;
  huge.shape[0] = int64_t{1} << 61;
  CHECK_THROWS_AS(planMinCost(huge, CostModel{}), PlanError);
}
