#include "exec/plan_footprint.h"

#include <doctest/doctest.h>

#include "reshard/mesh_coords.h"

using namespace reshardctl;

namespace {

const ProcessMesh kMesh2x2{{2, 2}, {0, 1, 2, 3}, true};
const ProcessMesh kMesh4{{4}, {0, 1, 2, 3}, true};

Step collective(StepKind kind, const Layout& from, const Layout& to, int64_t meshDim) {
  return Step{.kind = kind, .meshDim = meshDim, .meshDims = {}, .reduce = std::nullopt, .scale = 1, .tensorDim = -1,
              .fromTensorDim = -1, .groups = groupsAlong(from.mesh, meshDim), .bytesPerRank = 0, .estUs = 0,
              .from = from, .to = to};
}

const Placement kR = Placement::replicate();
Placement s(int64_t dim) { return Placement::shard(dim); }

// 8x4 split over both dims of a 2x2 mesh, gathered one mesh dim at a time.
Plan gatherTwice() {
  Plan plan;
  plan.shape = {8, 4};
  const Layout split{kMesh2x2, {s(0), s(1)}}, half{kMesh2x2, {kR, s(1)}}, whole{kMesh2x2, {kR, kR}};
  plan.src = split;
  plan.dst = whole;
  plan.steps = {collective(StepKind::AllGather, split, half, 0), collective(StepKind::AllGather, half, whole, 1)};
  return plan;
}

}  // namespace

TEST_CASE("plan footprint: a replicating step holds the tensor once per rank, before and after it") {
  const PlanFootprint footprint = planFootprint(gatherTwice());
  // Source: 4 ranks x 4x2 doubles = 256 bytes; after step 1 4 x 8x2 = 512; after step 2 4 x 8x4 = 1024.
  CHECK(footprint.peakBytes == 512 + 1024);
  CHECK(footprint.peakStep == 2);
  // Each all_gather reads what it writes: (4 x 16) x 2, then (4 x 32) x 2.
  CHECK(footprint.work == 128 + 256);
}

TEST_CASE("plan footprint: an all_reduce reads its whole group's pieces; an uneven split counts its largest piece") {
  Plan plan;
  plan.shape = {5};
  const Layout partial{kMesh4, {Placement::partial(ReduceType::Sum)}}, whole{kMesh4, {kR}};
  plan.src = partial;
  plan.dst = whole;
  plan.steps = {collective(StepKind::AllReduce, partial, whole, 0)};
  const PlanFootprint footprint = planFootprint(plan);
  CHECK(footprint.peakBytes == 2 * 4 * 5 * 8);
  CHECK(footprint.work == 4 * 4 * 5 + 4 * 5);
  CHECK(layoutBytes({5}, Layout{kMesh4, {s(0)}}) == 4 * 2 * 8);  // chunks of 2, 2, 1, 0: each sized 2
}

TEST_CASE("plan footprint: sizes past 64 bits saturate instead of wrapping") {
  Plan plan = gatherTwice();
  plan.shape = {int64_t{1} << 40, int64_t{1} << 40};
  const PlanFootprint footprint = planFootprint(plan);
  CHECK(footprint.peakBytes > (uint64_t{1} << 61));
  CHECK(footprint.work > (uint64_t{1} << 61));
}

TEST_CASE("plan footprint: the refusal names the figure, the step and the limit; within both it is empty") {
  const Plan plan = gatherTwice();
  const PlanFootprint footprint = planFootprint(plan);
  const FootprintLimits limits{1000, "--max-memory=1000", 300, "--max-work=300"};
  CHECK(footprintProblem(footprint, 2, footprint.peakBytes, footprint.work, limits) ==
        "its plan holds 1.54e+03 bytes at step 2 of 2 (its pieces before and after it on every rank, and what the run "
        "holds besides), more than --max-memory=1000");
  CHECK(footprintProblem(footprint, 2, 1000, footprint.work, limits) ==
        "its plan's 2 steps copy or reduce 384 elements on the ranks, more than --max-work=300");
  CHECK(footprintProblem(footprint, 2, 1000, 300, limits).empty());
  CHECK(footprintProblem(footprint, 2, footprint.peakBytes, footprint.work, FootprintLimits{}).empty());
}
