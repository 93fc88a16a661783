// Property tests: random reshards on meshes up to 2x2x2 (and between meshes),
// random dtypes, even and uneven shapes. Every plan, min-cost and greedy, runs on
// the reference executor and must leave each rank exactly its destination piece;
// the min-cost plan must never cost more than the bounded dim-by-dim one, nor
// that one more than Paddle's greedy plan or DTensor's order.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <optional>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "exec/cpu_executor.h"
#include "exec/reference_data.h"
#include "reshard/mesh_coords.h"
#include "reshard/planner.h"

using namespace reshardctl;

namespace {

const std::vector<std::vector<int64_t>> kMeshShapes = {{1},    {2},    {3},    {4},       {1, 2},   {2, 2},
                                                       {2, 3}, {3, 2}, {2, 1, 2}, {2, 2, 2}, {1, 2, 2}};
constexpr std::array<DType, 10> kDTypes = {DType::F32, DType::F16, DType::BF16, DType::F64, DType::I32,
                                           DType::I64, DType::Bool, DType::I8,  DType::U8,  DType::C64};
constexpr std::array<ReduceType, 5> kArithmetic = {ReduceType::Sum, ReduceType::Avg, ReduceType::Max,
                                                   ReduceType::Min, ReduceType::Product};

class CaseMaker {
 public:
  explicit CaseMaker(uint64_t seed) : rng_(seed) {}

  std::mt19937_64& rng() { return rng_; }

  int64_t pick(int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng_); }
  template <typename List>
  const auto& oneOf(const List& list) { return list[static_cast<size_t>(pick(0, static_cast<int64_t>(list.size()) - 1))]; }

  std::vector<int64_t> tensorShape() {
    std::vector<int64_t> shape(static_cast<size_t>(pick(0, 3)));
    for (int64_t& extent : shape) extent = pick(0, 9) == 0 ? 0 : pick(1, 7);
    return shape;
  }

  // A mesh of a random shape whose ids start at `firstId`, sometimes shuffled.
  ProcessMesh mesh(int64_t firstId) {
    ProcessMesh result{oneOf(kMeshShapes), {}, true};
    for (int64_t i = 0; i < result.size(); ++i) result.processIds.push_back(firstId + i);
    if (pick(0, 3) == 0) std::shuffle(result.processIds.begin(), result.processIds.end(), rng_);
    return result;
  }

  // A dist attr Paddle could hold: each mesh dim replicates, splits an unused
  // tensor dim, or is partial. ANY/ALL partials mix with other types now and
  // then (a destination with one below another type is planned for bool only).
  TensorDistAttr attr(const ProcessMesh& mesh, size_t tensorRank) {
    TensorDistAttr result;
    result.mesh = mesh;
    result.dimsMapping.assign(tensorRank, -1);
    const bool logical = pick(0, 4) == 0;
    const bool mixed = logical && pick(0, 2) == 0;
    const ReduceType logicalType = pick(0, 1) == 0 ? ReduceType::Any : ReduceType::All;
    for (int64_t meshDim = 0; meshDim < mesh.ndim(); ++meshDim) {
      const int64_t roll = pick(0, 99);
      if (roll < 35 && tensorRank > 0) {
        const size_t dim = static_cast<size_t>(pick(0, static_cast<int64_t>(tensorRank) - 1));
        if (result.dimsMapping[dim] == -1) result.dimsMapping[dim] = meshDim;
      } else if (roll >= 70) {
        const bool arithmetic = !logical || (mixed && pick(0, 1) == 0);
        result.partials.push_back(PartialDim{meshDim, arithmetic ? oneOf(kArithmetic) : logicalType});
      }
    }
    return result;
  }

 private:
  std::mt19937_64 rng_;
};

bool isLogical(ReduceType type) { return type == ReduceType::Any || type == ReduceType::All; }

bool usesLogical(const TensorDistAttr& attr) {
  for (const PartialDim& partial : attr.partials)
    if (isLogical(partial.reduce)) return true;
  return false;
}

// Destinations the planner refuses: an ANY/ALL partial on a lower mesh dim
// than one of another type (not for bool), an AVG below a MAX/MIN (integers).
bool unmakeable(const TensorDistAttr& attr, DType dtype) {
  const bool integer = !isFloating(dtype) && !isComplex(dtype) && dtype != DType::Bool;
  for (const PartialDim& low : attr.partials)
    for (const PartialDim& high : attr.partials) {
      if (low.meshDim >= high.meshDim) continue;
      if (isLogical(low.reduce) && high.reduce != low.reduce && dtype != DType::Bool) return true;
      const bool extreme = high.reduce == ReduceType::Max || high.reduce == ReduceType::Min;
      if (integer && low.reduce == ReduceType::Avg && extreme) return true;
    }
  return false;
}

std::string describe(const Plan& plan) {
  std::vector<std::string> steps;
  for (const Step& step : plan.steps) steps.push_back(fmt::format("{}@{}", stepKindName(step.kind), step.meshDim));
  return fmt::format("{} -> {} shape [{}] {} steps: {}", layoutText(plan.src), layoutText(plan.dst),
                     fmt::join(plan.shape, ","), dtypeName(plan.dtype), fmt::join(steps, " "));
}

void checkPlanMovesData(const Plan& plan, const GlobalTensor& global, const DistTensor& source) {
  INFO(describe(plan));
  // A send_recv moves something between processes, or gives a process off the
  // source mesh its first (empty) piece; never only `2->2 3->3` (issue 16).
  for (const Step& step : plan.steps) {
    if (step.kind != StepKind::SendRecv) continue;
    const auto& sources = step.from.mesh.processIds;
    bool needed = std::any_of(step.groups.begin(), step.groups.end(), [](const auto& pair) { return pair[0] != pair[1]; });
    for (int64_t id : step.to.mesh.processIds)
      needed = needed || std::find(sources.begin(), sources.end(), id) == sources.end();
    CHECK(needed);
  }
  DistTensor tensor = source;
  try {
    executePlan(plan, tensor);
  } catch (const ExecutionError& error) {
    FAIL_CHECK("execution failed: ", error.what());
    return;
  }
  const PieceCheck check = checkDestinationPieces(tensor, global);
  CHECK_MESSAGE(check.ok(), check.problem, " max error ", check.maxError);
}

bool reducesOnArrival(const Plan& plan) {
  return std::any_of(plan.steps.begin(), plan.steps.end(),
                     [](const Step& step) { return step.kind == StepKind::SendRecv && step.reduce; });
}

// Plans one random reshard both ways and checks both plans on real data.
// Whether the min-cost plan reduces on arrival (reshard/reduce_on_arrival.h).
bool checkRandomReshard(CaseMaker& maker, const ReshardRequest& request) {
  const bool logicalValues = usesLogical(request.src) || usesLogical(request.dst);
  const GlobalTensor global = randomGlobalTensor(request.shape, request.dtype, logicalValues, maker.rng());
  const DistTensor source = makeSourcePieces(global, toLayout(request.src), maker.rng());
  REQUIRE(checkDestinationPieces(source, global).ok());

  const CostModel costs;
  if (unmakeable(request.dst, request.dtype)) {
    CHECK_THROWS_AS(planMinCost(request, costs), PlanError);
    return false;
  }
  const Plan minCost = planMinCost(request, costs);
  const Plan greedy = planGreedy(request, costs);
  const Plan dimByDim = planDimByDim(request, costs);
  checkPlanMovesData(minCost, global, source);
  checkPlanMovesData(greedy, global, source);
  checkPlanMovesData(dimByDim, global, source);
  INFO(describe(minCost), " vs greedy ", describe(greedy), " vs dim by dim ", describe(dimByDim));
  CHECK(minCost.search == SearchKind::Exact);
  CHECK(dimByDim.search == SearchKind::DimByDim);
  CHECK(minCost.estUs <= dimByDim.estUs * (1 + 1e-12));
  // The fallback is never costlier than the dim-by-dim plans it starts from.
  CHECK(dimByDim.estUs <= greedy.estUs * (1 + 1e-12));
  if (const std::optional<Plan> dtensor = planDTensorOrder(request, costs)) {
    checkPlanMovesData(*dtensor, global, source);
    INFO("DTensor's order ", describe(*dtensor));
    CHECK(dimByDim.estUs <= dtensor->estUs * (1 + 1e-12));
  }
  return reducesOnArrival(minCost);
}

}  // namespace

TEST_CASE("property: random reshards on one mesh move every piece where it belongs") {
  CaseMaker maker(20240401);
  for (int round = 0; round < 400; ++round) {
    CAPTURE(round);
    const ProcessMesh mesh = maker.mesh(0);
    const std::vector<int64_t> shape = maker.tensorShape();
    const ReshardRequest request{shape, maker.oneOf(kDTypes), maker.attr(mesh, shape.size()),
                                 maker.attr(mesh, shape.size())};
    checkRandomReshard(maker, request);
  }
}

TEST_CASE("property: random reshards between meshes move every piece where it belongs") {
  CaseMaker maker(20240402);
  int reducedOnArrival = 0;
  for (int round = 0; round < 250; ++round) {
    CAPTURE(round);
    const ProcessMesh source = maker.mesh(0);
    // Disjoint, overlapping or the same processes on the destination mesh.
    const ProcessMesh destination = maker.mesh(maker.oneOf(std::array<int64_t, 3>{{8, 2, 0}}));
    if (source == destination) continue;
    const std::vector<int64_t> shape = maker.tensorShape();
    const ReshardRequest request{shape, maker.oneOf(kDTypes), maker.attr(source, shape.size()),
                                 maker.attr(destination, shape.size())};
    reducedOnArrival += checkRandomReshard(maker, request) ? 1 : 0;
  }
  // The comparison with the dim-by-dim plans covers the move that reduces on arrival.
  CHECK(reducedOnArrival > 0);
  MESSAGE(reducedOnArrival, " of the min-cost plans between meshes reduce on arrival");
}

namespace {

// A mesh of `dims` dims of size 2 numbered 0..2^dims-1.
ProcessMesh binaryMesh(int64_t dims) {
  ProcessMesh mesh{std::vector<int64_t>(static_cast<size_t>(dims), 2), {}, true};
  for (int64_t id = 0; id < mesh.size(); ++id) mesh.processIds.push_back(id);
  return mesh;
}

TensorDistAttr distAttr(const ProcessMesh& mesh, std::vector<int64_t> dimsMapping, const std::vector<int64_t>& sums) {
  TensorDistAttr attr;
  attr.mesh = mesh;
  attr.dimsMapping = std::move(dimsMapping);
  for (int64_t meshDim : sums) attr.partials.push_back({meshDim, ReduceType::Sum});
  return attr;
}

void checkManyDims(const ReshardRequest& request, SearchKind expected) {
  std::mt19937_64 rng(7);
  const GlobalTensor global = randomGlobalTensor(request.shape, request.dtype, false, rng);
  const DistTensor source = makeSourcePieces(global, toLayout(request.src), rng);
  const CostModel costs;
  const Plan plan = planMinCost(request, costs);
  CHECK(plan.search == expected);
  checkPlanMovesData(plan, global, source);
  CHECK(plan.estUs <= planGreedy(request, costs).estUs * (1 + 1e-12));
  if (const std::optional<Plan> dtensor = planDTensorOrder(request, costs))
    CHECK(plan.estUs <= dtensor->estUs * (1 + 1e-12));
}

}  // namespace

TEST_CASE("many mesh dims: 12 dims (4096 ranks) take the bounded search, 6 the exact one; both move the data") {
  const ProcessMesh twelve = binaryMesh(12);
  checkManyDims({{8, 8}, DType::F32, distAttr(twelve, {-1, -1}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}),
                 distAttr(twelve, {-1, -1}, {})},
                SearchKind::DimByDim);
  checkManyDims({{8, 8}, DType::F32, distAttr(twelve, {0, 1}, {2, 3, 4}), distAttr(twelve, {1, -1}, {0, 5})},
                SearchKind::DimByDim);
  const ProcessMesh six = binaryMesh(6);
  checkManyDims({{8, 8}, DType::F32, distAttr(six, {0, -1}, {1, 2}), distAttr(six, {-1, 3}, {0})},
                SearchKind::Exact);
}
