#include "reshard/plan_alternatives.h"

#include <doctest/doctest.h>

using namespace reshardctl;

namespace {

const ProcessMesh kMesh2{{2}, {0, 1}, true};
const ProcessMesh kMesh2x2{{2, 2}, {0, 1, 2, 3}, true};

}  // namespace

TEST_CASE("plan alternatives: the chosen plan first, never costlier by the model than any other") {
  const CostModel costs;
  const ReshardRequest swap{{1024, 1024}, DType::F32, TensorDistAttr{kMesh2x2, {0, 1}, {}, {}}, TensorDistAttr{kMesh2x2, {1, 0}, {}, {}}};
  const std::vector<PlanAlternative> alternatives = planAlternatives(swap, costs);
  REQUIRE(alternatives.size() == 5);  // DTensor's order too: all_gather, all_to_all, slice
  CHECK(alternatives[0].name == "chosen");
  CHECK(alternatives[1].name == "paddle nd_mesh");
  CHECK(alternatives[2].name == "dtensor");
  for (const PlanAlternative& other : alternatives) CHECK(alternatives[0].measure.estUs <= other.measure.estUs + 1e-9);
  // One send_recv of a quarter against Paddle's two all_gathers (and slices).
  CHECK(alternatives[0].measure.collectives == 1);
  CHECK(alternatives[0].measure.busBytes == doctest::Approx(1024 * 1024));
  CHECK(alternatives[1].measure.collectives == 2);
  CHECK(whyChosen(alternatives).rfind("the cheapest by the model (", 0) == 0);
}

TEST_CASE("plan alternatives: a plan with fewer collectives but more bytes is named with what it would cost") {
  // A partial sum to the next stage on another node (2048x1024 bf16): Paddle
  // sends whole pieces and all_reduces (2 collectives); reduce_scatter, then
  // each destination taking both halves, moves a quarter less in as many, and
  // wins on the slow network between nodes over reducing whole pieces on
  // arrival (1 collective, more bytes).
  CostModel costs;
  costs.processesPerNode = 1;
  const ProcessMesh next{{2}, {2, 3}, true};
  const ReshardRequest request{{2048, 1024}, DType::BF16, TensorDistAttr{kMesh2, {-1, -1}, {{0, ReduceType::Sum}}, {}},
                               TensorDistAttr{next, {-1, -1}, {}, {}}};
  const std::vector<PlanAlternative> alternatives = planAlternatives(request, costs);
  REQUIRE(alternatives.size() == 4);  // DTensor plans on one mesh only
  const PlanAlternative& chosen = alternatives[0];
  const PlanAlternative& paddle = alternatives[1];
  CHECK(chosen.measure.collectives == 2);
  CHECK(chosen.measure.busBytes == doctest::Approx(6291456));
  CHECK(paddle.measure.collectives == 2);
  CHECK(paddle.measure.busBytes == doctest::Approx(8388608));
  CHECK(paddle.measure.estUs > chosen.measure.estUs);
  CHECK(whyChosen(alternatives).find("fewest collectives makes 1 collective fewer but costs") != std::string::npos);
  CHECK(measurePlan(chosen.plan, costs).estUs == doctest::Approx(chosen.plan.estUs));
  // Within one node the move is on NVLink: whole pieces reduced on arrival, 1 collective.
  const std::vector<PlanAlternative> withinNode = planAlternatives(request, CostModel{});
  CHECK(withinNode[0].measure.collectives == 1);
  CHECK(withinNode[0].measure.busBytes == doctest::Approx(8388608));
}
