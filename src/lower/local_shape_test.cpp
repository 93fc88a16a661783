#include "lower/local_shape.h"

#include <doctest/doctest.h>

namespace reshardctl {

TEST_CASE("local shape: even and uneven splits, N-D meshes, ranks outside the mesh") {
  TensorDistAttr rows{ProcessMesh({2}, {0, 1}), {0, -1}, {}, ""};
  CHECK(localShape({7, 5}, rows, 0) == std::vector<int64_t>{4, 5});
  CHECK(localShape({7, 5}, rows, 1) == std::vector<int64_t>{3, 5});
  CHECK(localShape({7, 5}, rows, 3) == std::vector<int64_t>{7, 5});
  TensorDistAttr grid{ProcessMesh({2, 2}, {0, 1, 2, 3}), {1, 0}, {}, ""};
  CHECK(localShape({8, 6}, grid, 1) == std::vector<int64_t>{4, 3});
  CHECK(positionOf(grid.mesh, 3) == 3);
  CHECK(positionOf(grid.mesh, 4) == -1);
}

}  // namespace reshardctl
