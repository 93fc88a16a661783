#include "reshard/path_improvement.h"

#include <doctest/doctest.h>

using namespace reshardctl;

namespace {

const Placement R = Placement::replicate();
const Placement S0 = Placement::shard(0);
const Placement S1 = Placement::shard(1);
const Placement PSum = Placement::partial(ReduceType::Sum);

double pathCost(const ProcessMesh& mesh, const std::vector<Placements>& path, const TensorSpec& tensor,
                const CostModel& costs) {
  double sum = 0;
  for (size_t i = 0; i + 1 < path.size(); ++i) sum += hopCost(mesh, path[i], path[i + 1], tensor, costs);
  return sum;
}

}  // namespace

TEST_CASE("changedMeshDim: the one dim that differs, -1 for none, -2 for several") {
  CHECK(changedMeshDim({R, S0}, {R, S0}) == -1);
  CHECK(changedMeshDim({R, S0}, {S1, S0}) == 0);
  CHECK(changedMeshDim({R, S0}, {S1, R}) == -2);
}

TEST_CASE("hopCost: negative where no one primitive makes the change") {
  const ProcessMesh mesh({2, 2}, {0, 1, 2, 3});
  const TensorSpec tensor{{64, 64}, DType::F32};
  const CostModel costs;
  CHECK(hopCost(mesh, {R, R}, {R, R}, tensor, costs) == 0.0);
  CHECK(hopCost(mesh, {S0, R}, {R, R}, tensor, costs) > 0.0);
  CHECK(hopCost(mesh, {S0, R}, {R, PSum}, tensor, costs) < 0.0);         // two dims at once, a partial made
  CHECK(hopCost(mesh, {S0, R}, {R, S1}, tensor, costs) > 0.0);           // a permutation of pieces
  CHECK(hopCost(mesh, {PSum, R}, {Placement::partial(ReduceType::Max), R}, tensor, costs) < 0.0);
}

TEST_CASE("improvePath: a gather then a slice on one mesh dim becomes one all_to_all") {
  const ProcessMesh mesh({4}, {0, 1, 2, 3});
  const TensorSpec tensor{{1024, 1024}, DType::F32};
  const CostModel costs;
  const std::vector<Placements> path{{S1}, {R}, {S0}};
  const std::vector<Placements> better = improvePath(mesh, path, tensor, costs);
  CHECK(better == std::vector<Placements>{{S1}, {S0}});
  CHECK(pathCost(mesh, better, tensor, costs) < pathCost(mesh, path, tensor, costs));
}

TEST_CASE("improvePath: a detour back to where it was is removed") {
  const ProcessMesh mesh({2, 2}, {0, 1, 2, 3});
  const TensorSpec tensor{{64, 64}, DType::F32};
  const std::vector<Placements> path{{S0, R}, {R, R}, {S0, R}, {S0, S1}};
  CHECK(improvePath(mesh, path, tensor, CostModel{}) == std::vector<Placements>{{S0, R}, {S0, S1}});
}

TEST_CASE("improvePath: reducing before gathering, swapped when the model says it is cheaper") {
  const ProcessMesh mesh({2, 2}, {0, 1, 2, 3});
  const TensorSpec tensor{{4096, 4096}, DType::F32};
  const CostModel costs;
  // Gathering first makes the all_reduce's buffer twice as large.
  const std::vector<Placements> path{{PSum, S0}, {PSum, R}, {R, R}};
  const std::vector<Placements> better = improvePath(mesh, path, tensor, costs);
  CHECK(better == std::vector<Placements>{{PSum, S0}, {R, S0}, {R, R}});
  CHECK(pathCost(mesh, better, tensor, costs) < pathCost(mesh, path, tensor, costs));
  CHECK(improvePath(mesh, better, tensor, costs) == better);  // nothing left to improve
}
