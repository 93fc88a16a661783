#include "interp/value_store.h"

#include <doctest/doctest.h>

using namespace reshardctl;

TEST_CASE("layout cache: a process's coordinate on an attr's mesh, by its id") {
  const TensorDistAttr dist{ProcessMesh({2, 3}, {7, 5, 3, 11, 9, 1}), {1, -1}, {}, {}};
  LayoutCache layouts;
  CHECK(layouts.coordOf(dist, 7) == MeshCoord{0, 0});
  CHECK(layouts.coordOf(dist, 9) == MeshCoord{1, 1});
  CHECK(layouts.coordOf(dist, 1) == MeshCoord{1, 2});
  CHECK_FALSE(layouts.coordOf(dist, 2));
  // A mesh known by its shape only is numbered from 0.
  const TensorDistAttr shapeOnly{ProcessMesh({2, 2}, {}, false), {-1, -1}, {}, {}};
  CHECK(layouts.coordOf(shapeOnly, 3) == MeshCoord{1, 1});
  CHECK_FALSE(layouts.coordOf(shapeOnly, 4));
}
