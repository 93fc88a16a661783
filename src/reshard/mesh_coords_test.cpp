#include "reshard/mesh_coords.h"

#include <doctest/doctest.h>

using namespace reshardctl;

TEST_CASE("mesh coords: row-major positions and groups along each dim") {
  const ProcessMesh mesh{{2, 3}, {10, 11, 12, 13, 14, 15}, true};
  CHECK(meshCoord(mesh, 4) == MeshCoord{1, 1});
  CHECK(meshPosition(mesh, {1, 2}) == 5);
  using Groups = std::vector<std::vector<int64_t>>;
  CHECK(groupsAlong(mesh, 0) == Groups{{10, 13}, {11, 14}, {12, 15}});
  CHECK(groupsAlong(mesh, 1) == Groups{{10, 11, 12}, {13, 14, 15}});
}

TEST_CASE("mesh coords: a mesh without ids is numbered from 0") {
  const ProcessMesh mesh{{2, 2}, {}, false};
  CHECK(processIds(mesh) == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(groupsAlong(mesh, 0) == std::vector<std::vector<int64_t>>{{0, 2}, {1, 3}});
}

TEST_CASE("groupsAlong several mesh dims: one group per other coordinate, members row-major over the dims") {
  const ProcessMesh mesh({2, 2, 2}, {10, 11, 12, 13, 14, 15, 16, 17});
  CHECK(groupsAlong(mesh, std::vector<int64_t>{0, 2}) == std::vector<std::vector<int64_t>>{{10, 11, 14, 15}, {12, 13, 16, 17}});
  CHECK(groupsAlong(mesh, std::vector<int64_t>{1}) == groupsAlong(mesh, 1));
  CHECK(groupsAlong(mesh, std::vector<int64_t>{0, 1, 2}) == std::vector<std::vector<int64_t>>{{10, 11, 12, 13, 14, 15, 16, 17}});
}
